//! A kernel dispatch on the shader core: the kernel descriptor read, the grid cut into work-groups
//! and waves, each wave's initial registers set as the hardware sets them, and the waves of a
//! work-group run between barriers. (Stub.)
