/* The Contiki cfs_* shim (include/strata/cfs.h) over strata_fs. */
#include <string.h>

#include "fs_helpers.h"
#include "strata/cfs.h"

/* what an application defines for the shim */
struct strata_fs *strata_cfs_fs;
struct strata_fs_file strata_cfs_files[STRATA_CFS_MAX_OPEN];

static void contiki_program(void **state)
{
    struct tfs t;
    struct cfs_dir dir;
    struct cfs_dirent ent;
    char buf[32];
    int fd, fd2, n = 0;
    (void)state;
    tfs_init(&t, "m25p80", 4, 1);
    strata_cfs_fs = &t.fs;
    assert_int_equal(cfs_coffee_reserve("log", 2000), 0);
    assert_int_equal(cfs_coffee_reserve("log", 2000), -1); /* exists */
    assert_int_equal(cfs_coffee_configure_log("tab", 100, 10), 0);
    fd = cfs_open("log", CFS_WRITE | CFS_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(cfs_write(fd, "hello ", 6), 6);
    assert_int_equal(cfs_write(fd, "world", 5), 5);
    assert_int_equal(cfs_open("log", CFS_READ), -1); /* one handle per file */
    cfs_close(fd);
    assert_int_equal(cfs_read(fd, buf, 4), -1);        /* closed descriptor */
    fd = cfs_open("log", CFS_READ);
    assert_int_equal(cfs_read(fd, buf, sizeof buf), 11);
    assert_memory_equal(buf, "hello world", 11);
    assert_int_equal(cfs_seek(fd, 6, CFS_SEEK_SET), 6);
    assert_int_equal(cfs_read(fd, buf, 5), 5);
    assert_memory_equal(buf, "world", 5);
    assert_int_equal(cfs_seek(fd, -5, CFS_SEEK_END), 6);
    assert_int_equal(cfs_seek(fd, 100, CFS_SEEK_SET), -1);
    assert_int_equal(cfs_write(fd, "x", 1), -1); /* read-only */
    /* CFS_WRITE without APPEND overwrites from offset 0 */
    fd2 = cfs_open("tab", CFS_READ | CFS_WRITE);
    assert_true(fd2 >= 0 && fd2 != fd);
    assert_int_equal(cfs_write(fd2, "0123456789", 10), 10);
    assert_int_equal(cfs_seek(fd2, 0, CFS_SEEK_SET), 0);
    assert_int_equal(cfs_write(fd2, "AB", 2), 2);
    assert_int_equal(cfs_seek(fd2, 0, CFS_SEEK_SET), 0);
    assert_int_equal(cfs_read(fd2, buf, sizeof buf), 10);
    assert_memory_equal(buf, "AB23456789", 10);
    cfs_close(fd2);
    cfs_close(fd);
    assert_int_equal(cfs_opendir(&dir, "/"), 0);
    while (cfs_readdir(&dir, &ent) == 0) {
        assert_true(strcmp(ent.name, "log") == 0 ? ent.size == 11 : ent.size == 10);
        n++;
    }
    cfs_closedir(&dir);
    assert_int_equal(n, 2);
    assert_int_equal(cfs_remove("tab"), 0);
    assert_int_equal(cfs_remove("tab"), -1);
    assert_int_equal(cfs_open("nope", CFS_READ), -1);
    assert_int_equal(cfs_coffee_format(), 0);
    assert_int_equal(cfs_open("log", CFS_READ), -1);
    tfs_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(contiki_program)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
