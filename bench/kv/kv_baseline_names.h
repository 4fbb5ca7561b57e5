/*
 * The benchmark's second build of the store's sources (KV_BASELINE: the write path of the WAL and
 * COW baselines, the classic regular split) links into the same program as the library itself,
 * which the RB store uses unchanged. Its external names are renamed here so the two builds do not
 * collide. A function added to src/kv and missing here makes the bench's link fail with a
 * duplicate symbol, never a silent mix of the two builds. (List: nm -g --defined-only over the
 * kv objects, plus kv_open, which only this build exports.)
 */
#ifndef KV_BASELINE_NAMES_H
#define KV_BASELINE_NAMES_H
#define kv_after_commit bl_kv_after_commit
#define kv_child_box bl_kv_child_box
#define kv_ckpt_load bl_kv_ckpt_load
#define kv_ckpt_write bl_kv_ckpt_write
#define kv_codec bl_kv_codec
#define kv_commit bl_kv_commit
#define kv_crc_tail bl_kv_crc_tail
#define kv_cur bl_kv_cur
#define kv_domain bl_kv_domain
#define kv_ferase bl_kv_ferase
#define kv_format bl_kv_format
#define kv_fprog bl_kv_fprog
#define kv_fread bl_kv_fread
#define kv_is_chain bl_kv_is_chain
#define kv_limits bl_kv_limits
#define kv_live_part bl_kv_live_part
#define kv_log_after bl_kv_log_after
#define kv_log_append bl_kv_log_append
#define kv_log_bytes bl_kv_log_bytes
#define kv_log_header bl_kv_log_header
#define kv_log_mark bl_kv_log_mark
#define kv_log_next bl_kv_log_next
#define kv_log_open bl_kv_log_open
#define kv_log_recycle bl_kv_log_recycle
#define kv_log_reserve bl_kv_log_reserve
#define kv_log_room bl_kv_log_room
#define kv_log_span bl_kv_log_span
#define kv_log_start bl_kv_log_start
#define kv_log_walk bl_kv_log_walk
#define kv_log_window bl_kv_log_window
#define kv_meets bl_kv_meets
#define kv_node_load bl_kv_node_load
#define kv_part_clean bl_kv_part_clean
#define kv_part_io bl_kv_part_io
#define kv_part_unit bl_kv_part_unit
#define kv_prog_runs bl_kv_prog_runs
#define kv_quadrant bl_kv_quadrant
#define kv_rb_group_alloc bl_kv_rb_group_alloc
#define kv_rb_node_append bl_kv_rb_node_append
#define kv_rb_rec_append bl_kv_rb_rec_append
#define kv_rec_encode bl_kv_rec_encode
#define kv_read_part bl_kv_read_part
#define kv_rec_read bl_kv_rec_read
#define kv_restore bl_kv_restore
#define kv_scan_flash bl_kv_scan_flash
#define kv_signature bl_kv_signature
#define kv_summary bl_kv_summary
#define kv_summary_add bl_kv_summary_add
#define kv_summary_codec bl_kv_summary_codec
#define kv_summary_reset bl_kv_summary_reset
#define kv_switch bl_kv_switch
#define kv_tree_put bl_kv_tree_put
#define kv_undo_entries bl_kv_undo_entries
#define kv_undo_unit bl_kv_undo_unit
#define kv_unit_addr bl_kv_unit_addr
#define kv_unit_blank bl_kv_unit_blank
#define kv_unit_clean bl_kv_unit_clean
#define kv_used bl_kv_used
#define strata_kv_commit bl_strata_kv_commit
#define strata_kv_config_check bl_strata_kv_config_check
#define strata_kv_count bl_strata_kv_count
#define strata_kv_format bl_strata_kv_format
#define strata_kv_get bl_strata_kv_get
#define strata_kv_mount bl_strata_kv_mount
#define strata_kv_put bl_strata_kv_put
#define strata_kv_scan_next bl_strata_kv_scan_next
#define strata_kv_scan_open bl_strata_kv_scan_open
#define strata_kv_stat bl_strata_kv_stat
#define kv_open bl_kv_open
#endif
