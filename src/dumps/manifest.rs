//! A captured enqueue's `capture.json`: what `cltap replay` needs to run the
//! kernel again without the application, and the files beside it.

use serde::{Deserialize, Serialize};

pub const FILE: &str = "capture.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    pub kernel: String,
    /// The process's kernel enqueue number, from 1.
    pub enqueue: u64,
    /// The device it ran on (`CL_DEVICE_NAME`).
    pub device: String,
    pub program: Program,
    pub work_dim: u32,
    pub global_offset: Option<Vec<usize>>,
    pub global: Vec<usize>,
    pub local: Option<Vec<usize>>,
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// `source`, `il` or `binary` (for the capture's device).
    pub kind: String,
    /// The file in the folder.
    pub file: String,
    /// The options of the build the driver made (`CL_PROGRAM_BUILD_OPTIONS`).
    pub options: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arg {
    pub index: u32,
    /// `buffer`, `image`, `sampler`, `scalar`, `local`, `svm` or `unset`.
    pub kind: String,
    /// Bytes: the buffer's or image's contents, the scalar's value, the
    /// local size, an SVM pointer's contents to its allocation's end.
    pub size: usize,
    /// The contents before the enqueue (`before/a<I>.bin`), and after.
    pub before: Option<String>,
    pub after: Option<String>,
    pub image: Option<Image>,
    /// A sampler's normalized coordinates (0 or 1), addressing and filter modes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<[u32; 3]>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// `CL_MEM_TYPE`.
    pub mem_type: u32,
    /// Channel order and data type (`cl_image_format`).
    pub format: [u32; 2],
    pub element_size: usize,
    /// Width, height (or array size), depth (or array size): the whole image.
    pub region: [usize; 3],
}
