// Instructions of every gfx906 encoding family in many operand shapes, for tests/oracle.rs:
// llvm-mc-15 assembles them, LLVM's disassembler reads them back, and our decoder must agree on
// the length and the mnemonic. One instruction a line; lines starting with // are comments.

// SOP2: registers, inline constants, literals on either side, 64-bit pairs
s_add_u32 s0, s1, s2
s_add_u32 s0, s1, 0x12345678
s_add_u32 s0, 0x12345678, s1
s_addc_u32 s0, -1, 64
s_and_b64 s[0:1], s[2:3], exec
s_andn2_b64 exec, exec, vcc
s_lshl_b64 s[4:5], s[6:7], 3
s_cselect_b32 s0, 1.0, -4.0
s_bfe_u32 s0, s1, 0x80008
s_mul_i32 s0, s1, m0
s_pack_ll_b32_b16 s0, s1, s2
s_lshl2_add_u32 s0, s1, s2
s_absdiff_i32 s0, s1, s2
s_rfe_restore_b64 s[0:1], s2
// SOPK
s_movk_i32 s0, 0x1234
s_cmpk_eq_u32 s0, 0x10
s_addk_i32 s0, -5
s_mulk_i32 s1, 3
s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 32)
s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x3
s_call_b64 s[0:1], 4
// SOP1
s_mov_b32 s0, s1
s_mov_b32 s0, 0xdeadbeef
s_mov_b64 s[0:1], -1
s_mov_b64 s[0:1], 0x12345678
s_not_b32 s0, s1
s_brev_b32 s0, s1
s_bcnt1_i32_b64 s0, s[2:3]
s_ff1_i32_b32 s0, s1
s_flbit_i32_b32 s0, s1
s_sext_i32_i8 s0, s1
s_getpc_b64 s[0:1]
s_setpc_b64 s[0:1]
s_swappc_b64 s[0:1], s[2:3]
s_and_saveexec_b64 s[0:1], vcc
s_or_saveexec_b64 s[0:1], s[2:3]
s_andn2_saveexec_b64 s[0:1], vcc
s_movrels_b32 s0, s1
s_movreld_b32 s0, s1
s_abs_i32 s0, s1
s_bitreplicate_b64_b32 s[0:1], s2
// SOPC
s_cmp_eq_u32 s0, s1
s_cmp_lg_u32 s0, 0x1000
s_cmp_lt_i32 0x1000, s0
s_cmp_eq_u64 s[0:1], s[2:3]
s_cmp_lg_u64 s[0:1], 0
s_bitcmp1_b32 s0, 3
s_set_gpr_idx_on s0, gpr_idx(SRC0)
// SOPP
s_nop 7
s_endpgm
s_branch 4
s_cbranch_scc0 -2
s_cbranch_scc1 1
s_cbranch_vccz 1
s_cbranch_vccnz 1
s_cbranch_execz 1
s_cbranch_execnz 1
s_barrier
s_waitcnt vmcnt(0) lgkmcnt(0)
s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)
s_sleep 2
s_setprio 3
s_sendmsg sendmsg(MSG_INTERRUPT)
s_trap 2
s_icache_inv
s_set_gpr_idx_off
s_setkill 1
s_sethalt 1
s_endpgm_saved
// SMEM
s_load_dword s0, s[4:5], 0x10
s_load_dwordx2 s[0:1], s[4:5], 0x0
s_load_dwordx4 s[0:3], s[4:5], s6
s_load_dwordx8 s[8:15], s[4:5], 0xfffff
s_load_dwordx16 s[16:31], s[4:5], 0x40 glc
s_buffer_load_dword s0, s[8:11], 0x4
s_buffer_load_dwordx2 s[0:1], s[8:11], s2
s_store_dword s0, s[4:5], 0x0
s_store_dwordx2 s[0:1], s[4:5], 0x8 glc
s_memtime s[0:1]
s_memrealtime s[0:1]
s_dcache_inv
s_dcache_wb
s_atomic_add s0, s[4:5], 0x0
s_atomic_cmpswap_x2 s[0:3], s[4:5], 0x0 glc
s_scratch_load_dword s0, s[4:5], 0x0
// VOP2: VGPR, SGPR, inline constant, literal sources; VOP2 with carries
v_add_f32 v0, v1, v2
v_add_f32 v0, s1, v2
v_add_f32 v0, 0.5, v2
v_add_f32 v0, 0x3dcccccd, v2
v_sub_f32 v0, -4.0, v2
v_mul_f32 v0, v1, v2
v_mul_i32_i24 v0, v1, v2
v_max_f32 v255, v254, v253
v_and_b32 v0, 0xff, v1
v_lshlrev_b32 v0, 2, v1
v_ashrrev_i32 v0, 31, v1
v_add_co_u32 v0, vcc, v1, v2
v_addc_co_u32 v0, vcc, v1, v2, vcc
v_sub_co_u32 v0, vcc, s1, v2
v_subrev_co_u32 v0, vcc, 1, v2
v_cndmask_b32 v0, v1, v2, vcc
v_mac_f32 v0, v1, v2
v_madmk_f32 v0, v1, 0x40000000, v2
v_madak_f32 v0, v1, v2, 0x40000000
v_madmk_f16 v0, v1, 0x4000, v2
v_madak_f16 v0, v1, v2, 0x4000
v_add_u32 v0, v1, v2
v_add_f16 v0, v1, v2
v_mul_lo_u16 v0, v1, v2
v_ldexp_f16 v0, v1, v2
v_fmac_f32 v0, v1, v2
v_xnor_b32 v0, v1, v2
// VOP2 in SDWA and DPP
v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
v_and_b32_sdwa v0, v1, v2 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_2
v_add_f32_sdwa v0, s1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD
v_add_f32_dpp v0, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_add_u32_dpp v0, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
v_add_co_u32_dpp v0, vcc, v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
v_mov_b32_dpp v0, v1 wave_shr:1 row_mask:0xf bank_mask:0xf
// VOP1
v_nop
v_mov_b32 v0, v1
v_mov_b32 v0, s0
v_mov_b32 v0, 0x12345678
v_mov_b32 v0, -1
v_readfirstlane_b32 s0, v1
v_cvt_f32_i32 v0, v1
v_cvt_u32_f32 v0, v1
v_cvt_f64_f32 v[0:1], v2
v_cvt_f32_f64 v0, v[2:3]
v_cvt_f16_f32 v0, v1
v_rcp_f32 v0, v1
v_rsq_f64 v[0:1], v[2:3]
v_sqrt_f32 v0, 0x40800000
v_ffbh_u32 v0, v1
v_frexp_mant_f32 v0, v1
v_fract_f64 v[0:1], v[2:3]
v_exp_f32 v0, v1
v_log_f32 v0, v1
v_swap_b32 v0, v1
v_cvt_norm_i16_f16 v0, v1
v_sat_pk_u8_i16 v0, v1
v_screen_partition_4se_b32 v0, v1
v_mov_b32_sdwa v0, v1 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:WORD_0
v_cvt_f32_f16_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
v_cvt_f32_f16_sdwa v0, -v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
// VOPC: into vcc, SDWA into an SGPR pair, cmpx
v_cmp_eq_u32 vcc, v1, v2
v_cmp_gt_i32 vcc, 0x100, v2
v_cmp_lt_f32 vcc, s1, v2
v_cmp_neq_f64 vcc, v[0:1], v[2:3]
v_cmp_class_f32 vcc, v1, v2
v_cmpx_ne_u32 vcc, v1, v2
v_cmp_u_f16 vcc, v1, v2
v_cmp_gt_u64 vcc, s[0:1], v[2:3]
v_cmp_eq_u32_sdwa s[0:1], v1, v2 src0_sel:BYTE_0 src1_sel:WORD_1
v_cmp_eq_u32_sdwa vcc, v1, v2 src0_sel:DWORD src1_sel:DWORD
// VOP3: VOP2/VOP1/VOPC in the 64-bit encoding with modifiers, VOP3-only ops, VOP3b
v_add_f32_e64 v0, v1, v2
v_add_f32_e64 v0, -v1, |v2| clamp
v_add_f32_e64 v0, v1, v2 mul:2
v_mul_f32_e64 v0, s1, s1 div:2
v_mov_b32_e64 v0, v1
v_cvt_f32_i32_e64 v0, s1 mul:4
v_cmp_eq_u32_e64 s[0:1], v1, 5
v_cmp_lt_f32_e64 s[2:3], -v1, |v2|
v_cmpx_gt_f32_e64 s[0:1], v1, v2
v_cndmask_b32_e64 v0, v1, v2, s[0:1]
v_add_co_u32_e64 v0, s[0:1], v1, v2
v_addc_co_u32_e64 v0, s[0:1], v1, v2, s[2:3]
v_mad_f32 v0, v1, v2, v3
v_mad_f32 v0, -v1, v2, |v3| clamp
v_fma_f32 v0, v1, s2, 1.0
v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]
v_mad_u64_u32 v[0:1], s[2:3], v4, v5, v[6:7]
v_mad_i64_i32 v[0:1], vcc, v4, s5, 0
v_div_scale_f32 v0, vcc, v1, v2, v3
v_div_scale_f64 v[0:1], s[4:5], v[2:3], v[4:5], v[6:7]
v_div_fmas_f32 v0, v1, v2, v3
v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]
v_bfe_u32 v0, v1, 8, 8
v_bfi_b32 v0, v1, v2, v3
v_alignbit_b32 v0, v1, v2, 16
v_add3_u32 v0, v1, v2, v3
v_lshl_add_u32 v0, v1, 2, v3
v_lshl_or_b32 v0, v1, 16, v2
v_and_or_b32 v0, v1, v2, v3
v_or3_b32 v0, v1, v2, v3
v_xad_u32 v0, v1, v2, v3
v_perm_b32 v0, v1, v2, v3
v_med3_f32 v0, v1, v2, v3
v_min3_i32 v0, v1, v2, v3
v_max3_u32 v0, v1, v2, v3
v_mul_lo_u32 v0, v1, v2
v_mul_hi_u32 v0, v1, v2
v_mul_hi_i32 v0, s1, v2
v_mul_f64 v[0:1], v[2:3], v[4:5]
v_add_f64 v[0:1], -v[2:3], s[4:5]
v_ldexp_f64 v[0:1], v[2:3], v4
v_lshlrev_b64 v[0:1], 3, v[2:3]
v_lshrrev_b64 v[0:1], v2, v[4:5]
v_ashrrev_i64 v[0:1], 1, v[2:3]
v_readlane_b32 s0, v1, 3
v_writelane_b32 v0, s1, 7
v_readlane_b32 s0, v1, s2
v_mbcnt_lo_u32_b32 v0, -1, 0
v_mbcnt_hi_u32_b32 v0, -1, v0
v_bcnt_u32_b32 v0, v1, 0
v_cvt_pkrtz_f16_f32 v0, v1, v2
v_cvt_pk_u16_u32 v0, v1, v2
v_pack_b32_f16 v0, v1, v2
v_pack_b32_f16 v0, v1, v2 op_sel:[1,0,0]
v_mad_u32_u24 v0, v1, v2, v3
v_sad_u32 v0, v1, v2, v3
v_msad_u8 v0, v1, v2, v3
v_cubeid_f32 v0, v1, v2, v3
v_mad_f16 v0, v1, v2, v3
v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0,0]
v_fma_mixlo_f16 v0, v1, v2, v3
v_add_i32 v0, v1, v2
v_add_i16 v0, v1, v2
v_interp_p1ll_f16 v0, v1, attr0.x
v_trig_preop_f64 v[0:1], v[2:3], 3
v_cvt_pknorm_i16_f32 v0, v1, v2
// VOP3P
v_pk_add_f16 v0, v1, v2
v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
v_pk_mul_f16 v0, v1, v2 neg_lo:[1,0] neg_hi:[0,1]
v_pk_fma_f16 v0, v1, v2, v3
v_pk_fma_f16 v0, v1, v2, v3 op_sel:[0,0,1] op_sel_hi:[1,1,0]
v_pk_add_u16 v0, v1, s2 clamp
v_pk_lshlrev_b16 v0, 1, v2
v_pk_mad_u16 v0, v1, v2, v3
v_pk_max_i16 v0, v1, v2
v_fma_mix_f32 v0, v1, v2, v3
v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[1,1,1]
v_dot2_f32_f16 v0, v1, v2, v3
v_dot4_i32_i8 v0, v1, v2, v3
v_dot8_u32_u4 v0, v1, v2, v3
// VINTRP
v_interp_p1_f32 v0, v1, attr0.x
v_interp_p2_f32 v0, v1, attr3.w
v_interp_mov_f32 v0, p10, attr1.y
// DS
ds_read_b32 v0, v1
ds_read_b32 v0, v1 offset:65535
ds_read_b64 v[0:1], v2 offset:8
ds_read_b128 v[0:3], v4
ds_read2_b32 v[0:1], v2 offset0:1 offset1:255
ds_read2st64_b64 v[0:3], v4 offset1:1
ds_read_u8 v0, v1
ds_read_i16 v0, v1
ds_read_u16_d16_hi v0, v1
ds_write_b32 v0, v1
ds_write_b64 v0, v[2:3] offset:16
ds_write2_b32 v0, v1, v2 offset0:4 offset1:8
ds_write_b8 v0, v1
ds_write_b16_d16_hi v0, v1
ds_add_u32 v0, v1
ds_add_rtn_u32 v0, v1, v2
ds_cmpst_b32 v0, v1, v2
ds_cmpst_rtn_b64 v[0:1], v2, v[4:5], v[6:7]
ds_max_rtn_i32 v0, v1, v2 offset:4
ds_wrxchg_rtn_b32 v0, v1, v2
ds_add_f32 v0, v1
ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)
ds_permute_b32 v0, v1, v2
ds_bpermute_b32 v0, v1, v2
ds_append v0
ds_consume v0 gds
ds_gws_init v0 offset:0 gds
ds_gws_barrier v0 gds
ds_nop
ds_read_addtid_b32 v0
ds_add_u32 v0, v1 gds
// MUBUF
buffer_load_dword v0, off, s[0:3], 0
buffer_load_dword v0, v1, s[0:3], s4 offen offset:4095
buffer_load_dwordx2 v[0:1], v2, s[0:3], 0 idxen
buffer_load_dwordx4 v[0:3], v[4:5], s[8:11], s12 idxen offen glc slc
buffer_load_ubyte v0, off, s[0:3], 0 offset:12
buffer_load_sbyte_d16_hi v0, off, s[0:3], 0
buffer_load_format_xyzw v[0:3], v4, s[0:3], 0 idxen
buffer_store_dword v0, v1, s[0:3], 0 offen
buffer_store_byte v0, off, s[0:3], s4 offset:1
buffer_store_dwordx3 v[0:2], off, s[0:3], 0
buffer_store_short_d16_hi v0, off, s[0:3], 0
buffer_atomic_add v0, v1, s[0:3], 0 offen glc
buffer_atomic_cmpswap_x2 v[0:3], v4, s[0:3], 0 offen
buffer_atomic_umax v0, off, s[0:3], 0
buffer_load_dword off, s[0:3], 0 lds
buffer_load_dword v1, s[0:3], 0 offen lds
buffer_wbinvl1
buffer_wbinvl1_vol
// MTBUF
tbuffer_load_format_x v0, off, s[0:3], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]
tbuffer_load_format_xyzw v[0:3], v4, s[0:3], 0 format:[BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_UINT] idxen
tbuffer_store_format_xy v[0:1], v2, s[0:3], s4 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UNORM] offen offset:8
tbuffer_load_format_d16_x v0, off, s[0:3], 0 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_FLOAT]
// FLAT, GLOBAL, SCRATCH
flat_load_dword v0, v[1:2]
flat_load_dword v0, v[1:2] offset:4095 glc
flat_load_dwordx4 v[0:3], v[4:5]
flat_store_dword v[0:1], v2
flat_store_dwordx2 v[0:1], v[2:3] offset:8
flat_atomic_add v0, v[1:2], v3 glc
flat_atomic_cmpswap_x2 v[0:1], v[2:3], v[4:7] glc
flat_load_ubyte_d16_hi v0, v[1:2]
global_load_dword v0, v[1:2], off
global_load_dword v0, v[1:2], off offset:-4096
global_load_dword v0, v1, s[2:3] offset:16
global_load_dwordx2 v[0:1], v[2:3], off offset:4095
global_load_sbyte v0, v[1:2], off
global_load_short_d16 v0, v[1:2], off
global_store_dword v[0:1], v2, off
global_store_dword v0, v2, s[4:5] offset:-8
global_store_byte v[0:1], v2, off
global_store_dwordx4 v[0:1], v[2:5], off
global_atomic_add v0, v[1:2], v3, off glc
global_atomic_swap_x2 v[0:1], v[2:3], v[4:5], off glc
global_atomic_or v[0:1], v2, off
global_atomic_smin v1, v2, s[4:5]
scratch_load_dword v0, v1, off
scratch_load_dword v0, off, s2 offset:16
scratch_load_dwordx4 v[0:3], v4, off offset:-16
scratch_store_dword v0, v1, off
scratch_store_short v0, v1, off offset:2
scratch_load_short_d16_hi v0, v1, off
// MIMG
image_load v[0:3], v[4:7], s[8:15] dmask:0xf unorm
image_load v0, v[4:5], s[8:15] dmask:0x1 unorm
image_store v[0:3], v[4:7], s[8:15] dmask:0xf unorm
image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf
image_sample_l v[0:3], v[4:7], s[8:15], s[16:19] dmask:0xf
image_gather4 v[0:3], v[4:5], s[8:15], s[16:19] dmask:0x1
image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf
image_atomic_add v0, v[4:5], s[8:15] dmask:0x1 unorm glc
image_load_mip v[0:3], v[4:7], s[8:15] dmask:0xf unorm da
// EXP
exp mrt0 v0, v1, v2, v3 done vm
exp pos0 v0, off, off, off
exp param5 v0, v1, off, off compr
