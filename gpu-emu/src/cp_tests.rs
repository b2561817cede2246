//! The command processor against rings and signals laid out as ROCr's.
use super::*;
use crate::signal::tests::new_signal;
use crate::sys::{amd_queue_t, amd_signal_t};
use std::mem::offset_of;
