//! One kernel launch as the counter files show it, whatever it came from:
//! an OpenCL NDRange (with the driver's kernel statistics), an HSA dispatch
//! (with its kernel descriptor and counters), or an NDRange joined with the
//! HSA dispatch it became. A pass's rows are kept as JSON between the runs
//! of a multi-pass request (`<stem>.pass<N>.json`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub kernel: String,
    /// The OpenCL device's or the HSA agent's name.
    pub device: String,
    pub tid: u32,
    /// The NDRange's command id (OpenCL).
    pub cmd_id: Option<u64>,
    /// The enqueue's place among its thread's recorded calls (from 1).
    pub call_index: Option<u64>,
    /// The application's `cl_kernel`, for RCP's per-kernel `__k<N>` suffix.
    pub kernel_handle: Option<u64>,
    /// Unused dimensions are 1.
    pub global: [u64; 3],
    pub local: Option<[u64; 3]>,
    /// Whether the application gave the local size (else `local` is the
    /// driver's suggestion, or the dispatch's work-group once joined).
    #[serde(default)]
    pub local_given: bool,
    /// Device time (end − start), ns.
    pub time_ns: Option<u64>,
    /// Group-segment (LDS) bytes.
    pub lds: Option<u64>,
    /// Private-segment bytes per work-item.
    pub scratch: Option<u64>,
    pub vgprs: Option<u64>,
    pub sgprs: Option<u64>,
    /// `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE`.
    pub preferred_multiple: Option<u64>,
    /// `CL_KERNEL_WORK_GROUP_SIZE`.
    pub kernel_wg_max: Option<u64>,
    pub limits: Limits,
    pub hsa: Option<HsaDispatch>,
    /// Hardware counter values: packed event (see `hsa::aqlprofile::pack`)
    /// → value, summed over samples.
    pub events: BTreeMap<u64, u64>,
}

/// What an HSA dispatch record adds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HsaDispatch {
    /// cltap's dispatch number (from 1).
    pub seq: u64,
    pub agent: u64,
    /// The agent's index among the GPUs.
    pub gpu_index: u64,
    pub queue_id: u64,
    pub queue_index: u64,
    pub kernel_object: u64,
    /// The application's completion signal handle (0 in older traces).
    #[serde(default)]
    pub signal: u64,
    /// The queue's number among the intercept queues (rocprof's `queue-id`).
    #[serde(default)]
    pub queue_number: u64,
    /// `ROCP_HSA_INTERCEPT=2`'s times (ns of the runtime's clock); 0 when not taken.
    pub dispatch: u64,
    pub begin: u64,
    pub end: u64,
    pub complete: u64,
}

/// The device's limits, for the occupancy file (None where unknown).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub compute_units: Option<u64>,
    pub simds_per_cu: Option<u64>,
    pub wave_size: Option<u64>,
    pub max_waves_per_cu: Option<u64>,
    pub lds_per_cu: Option<u64>,
    pub max_wg_size: Option<u64>,
    /// An AMD GPU's ISA name (`gfx906`): registers are then known.
    pub gfx_ip: Option<String>,
    /// `CL_DEVICE_TYPE_CPU`: RCP names such devices `CPU`.
    pub cpu: bool,
}

/// One run's rows and what is needed to finish them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Pass {
    pub pass: u32,
    /// Runs the request needs (0: nothing could count).
    pub passes: u32,
    pub names: Vec<String>,
    pub metrics_file: Option<PathBuf>,
    /// The GPU counted on, for the catalog and its constants.
    pub gpu: Option<Gpu>,
    pub pid: u32,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gpu {
    pub name: String,
    pub compute_units: u32,
    pub simds_per_cu: u32,
    pub shader_engines: u32,
    pub wave_size: u32,
    /// `(AQLprofile block id, instances, slots)`, as the backend gave them.
    pub blocks: Vec<(u32, u32, u32)>,
}

impl Row {
    /// What a second pass must agree on for its counters to be joined with
    /// the first's: the same kernel with the same sizes on the same device.
    pub fn launch(&self) -> (&str, &str, [u64; 3], Option<[u64; 3]>) {
        (&self.kernel, &self.device, self.global, self.local)
    }

    pub fn global_size(&self) -> u64 {
        self.global.iter().product()
    }

    pub fn wg_size(&self) -> Option<u64> {
        self.local.map(|l| l.iter().product())
    }
}
