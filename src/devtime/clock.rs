//! A device's clock placed on the host's `CLOCK_MONOTONIC`, from readings
//! the layer takes of the driver's timers.

/// One reading of the driver's host timer (`clGetHostTimer`), between two
/// readings of `CLOCK_MONOTONIC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostSample {
    pub mono_before: u64,
    pub host: u64,
    pub mono_after: u64,
}

/// Nanoseconds to add to a device's profiling times to get the host's
/// `CLOCK_MONOTONIC`, from one `clGetDeviceAndHostTimer` reading (`device`,
/// `host`). The driver's host clock need not be `CLOCK_MONOTONIC`, so it is
/// itself placed by the tightest of `samples`.
pub fn host_offset(device: u64, host: u64, samples: &[HostSample]) -> Option<i64> {
    let mut best: Option<(u64, i64)> = None;
    for s in samples {
        let window = s.mono_after - s.mono_before;
        let host_minus_mono = s.host as i64 - (s.mono_before + window / 2) as i64;
        if best.is_none_or(|(w, _)| window < w) {
            best = Some((window, host_minus_mono));
        }
    }
    let (_, host_minus_mono) = best?;
    Some(host as i64 - device as i64 - host_minus_mono)
}

/// The OpenCL version in a `CL_DEVICE_VERSION` answer ("OpenCL 3.0 …").
pub fn cl_version(answer: &[u8]) -> Option<(u32, u32)> {
    let text = String::from_utf8_lossy(answer);
    let v = text.strip_prefix("OpenCL ")?.split([' ', '\0']).next()?;
    let (major, minor) = v.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tightest_sample_places_the_host_timer() {
        // The driver's host clock runs 1000 ns ahead of CLOCK_MONOTONIC and
        // its device clock 50_000 ns behind its host clock.
        let s = |before: u64, after: u64, skew: i64| HostSample {
            mono_before: before,
            host: (before + after) / 2 + (1000 + skew) as u64,
            mono_after: after,
        };
        let samples = [s(100, 300, 40), s(500, 520, 0), s(900, 1000, -30)];
        assert_eq!(host_offset(10_000, 60_000, &samples), Some(60_000 - 10_000 - 1000));
        assert_eq!(host_offset(10_000, 60_000, &[]), None);
    }

    #[test]
    fn versions_are_read_from_the_device_answer() {
        assert_eq!(cl_version(b"OpenCL 3.0 CUDA 12.4\0\0\0"), Some((3, 0)));
        assert_eq!(cl_version(b"OpenCL 1.2\0garbage"), Some((1, 2)));
        assert_eq!(cl_version(b"OpenCL 2.1 pocl 6.0"), Some((2, 1)));
        assert_eq!(cl_version(b"CUDA 12"), None);
        assert_eq!(cl_version(b"OpenCL x.y"), None);
    }
}
