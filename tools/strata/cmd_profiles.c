/* strata profiles: the device profiles, their geometry and costs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *kind_name(enum strata_sim_kind k)
{
    static const char *const names[] = {"NOR", "DataFlash", "NAND", "FTL", "FRAM"};
    return names[k];
}

void help_profiles(FILE *out)
{
    fprintf(out, "usage: strata profiles [-v]\n"
                 "List the simulator's device profiles (from flash-profiles.md): geometry and the\n"
                 "cost of reading a page, programming a page and erasing a unit. -v adds each\n"
                 "profile's sources and assumptions.\n");
}

static double op_ps(const struct strata_sim_cost *c, uint32_t bytes)
{
    return (double)(c->fixed_ps + c->page_ps + c->byte_ps * bytes);
}

int cmd_profiles(int argc, char **argv)
{
    int verbose = 0;
    size_t i;
    char t1[32], t2[32], t3[32];
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "-v") != 0))
        return cli_usage("profiles", "unexpected argument '%s'", argv[argc - 1]);
    verbose = argc == 2;
    printf("%-18s %-9s %7s %7s %6s %7s %12s %12s %12s\n", "profile", "kind", "page", "unit",
           "units", "spare", "read page", "prog page", "erase unit");
    for (i = 0; i < strata_sim_profile_count(); i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        printf("%-18s %-9s %7u %7u %6u %7u %12s %12s %12s\n", p->name, kind_name(p->kind),
               (unsigned)p->geo.page_size, (unsigned)p->geo.erase_size,
               (unsigned)p->geo.erase_count, (unsigned)p->geo.spare_size,
               cli_time(op_ps(&p->read, p->geo.page_size), t1, sizeof t1),
               cli_time(op_ps(&p->prog, p->geo.page_size), t2, sizeof t2),
               p->kind == STRATA_SIM_FTL || p->kind == STRATA_SIM_FRAM
                   ? "-"
                   : cli_time(op_ps(&p->erase, 0), t3, sizeof t3));
        if (verbose)
            printf("    %s\n", p->summary);
    }
    return CLI_OK;
}
