//! Reading `CLTAP_*` and `ROCP_*` variables into a [`Config`].

use super::*;

impl Config {
    /// Reads the configuration from `vars` (name, value pairs, as
    /// `std::env::vars()` gives them). Returns the configuration and every
    /// problem found; with any problem the caller must not record.
    pub fn from_vars<I>(vars: I) -> (Config, Vec<ConfigError>)
    where
        I: IntoIterator<Item = (String, String)>,
    {
        let mut cfg = Config::default();
        let mut errors = Vec::new();
        for (k, v) in vars {
            if k == "ROCP_HSA_INTERCEPT" {
                match v.trim() {
                    "" | "0" => cfg.hsa_intercept = 0,
                    "1" => cfg.hsa_intercept = 1,
                    "2" => cfg.hsa_intercept = 2,
                    _ => errors.push(ConfigError::Invalid {
                        var: "ROCP_HSA_INTERCEPT",
                        value: v.clone(),
                        accepted: "0, 1 or 2",
                    }),
                }
                continue;
            }
            if k == "ROCP_TOOL_LIB" {
                cfg.tool_libs = crate::tools::toollib::paths(&v);
                continue;
            }
            if k == "ROCP_METRICS" || k == "ROCP_INPUT" {
                let path = PathBuf::from(v.trim());
                if v.trim().is_empty() {
                    continue;
                }
                if !path.is_file() {
                    errors.push(ConfigError::Invalid {
                        var: if k == "ROCP_METRICS" { "ROCP_METRICS" } else { "ROCP_INPUT" },
                        value: v.clone(),
                        accepted: "the path of a readable file",
                    });
                } else if k == "ROCP_METRICS" {
                    cfg.metrics_file = Some(path);
                } else {
                    cfg.rocp_input = Some(path);
                }
                continue;
            }
            if !k.starts_with("CLTAP_") {
                continue;
            }
            if let Some(r) = GROUPS.iter().find_map(|g| (g.parse)(&k, &v, &mut cfg)) {
                if let Err(e) = r {
                    errors.push(e);
                }
                continue;
            }
            let r = match k.as_str() {
                "CLTAP_SUMMARY" => flag("CLTAP_SUMMARY", &v).map(|b| cfg.summary = b),
                "CLTAP_ICD_FILENAMES" => {
                    let paths: Vec<PathBuf> = v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect();
                    if paths.is_empty() {
                        Err(ConfigError::Invalid {
                            var: "CLTAP_ICD_FILENAMES",
                            value: v.clone(),
                            accepted: "one or more driver library paths separated by ':'",
                        })
                    } else {
                        cfg.icd_filenames = Some(paths);
                        Ok(())
                    }
                }
                "CLTAP_OUTPUT_NAME" => {
                    crate::naming::stem_with(Some(&v), &Process::current(), &|k| std::env::var(k).ok())
                        .map(|_| cfg.output_name = Some(v.clone()))
                        .map_err(|why| ConfigError::Template { var: "CLTAP_OUTPUT_NAME", value: v.clone(), why })
                }
                "CLTAP_RANKS" => match crate::naming::Ranks::parse(&v) {
                    Some(r) => {
                        cfg.ranks = Some(r);
                        Ok(())
                    }
                    None => Err(ConfigError::Invalid {
                        var: "CLTAP_RANKS",
                        value: v.clone(),
                        accepted: "comma-separated ranks and ranges, e.g. 0,3-5",
                    }),
                },
                "CLTAP_OUTPUT_DIR" => {
                    // Expanded once, here: a forked child writes beside its parent.
                    let dir = match crate::naming::expand(&v, &Process::current(), &|k| std::env::var(k).ok()) {
                        Ok(d) => d,
                        Err(why) => {
                            errors.push(ConfigError::Template { var: "CLTAP_OUTPUT_DIR", value: v.clone(), why });
                            continue;
                        }
                    };
                    // Created when missing, as `cltap run --output` does.
                    let p = std::path::Path::new(&dir);
                    match std::fs::create_dir_all(p) {
                        Ok(()) if p.is_dir() => {
                            cfg.output_dir = PathBuf::from(&dir);
                            Ok(())
                        }
                        Ok(()) => Err(ConfigError::Invalid {
                            var: "CLTAP_OUTPUT_DIR",
                            value: v.clone(),
                            accepted: "a directory",
                        }),
                        Err(e) => Err(ConfigError::Invalid {
                            var: "CLTAP_OUTPUT_DIR",
                            value: v.clone(),
                            accepted: if e.kind() == std::io::ErrorKind::PermissionDenied {
                                "a directory that exists or can be created (permission denied)"
                            } else {
                                "a directory that exists or can be created"
                            },
                        }),
                    }
                }
                "CLTAP_API_LOG" => flag("CLTAP_API_LOG", &v).map(|b| cfg.api_log = b),
                "CLTAP_DEVICE_TIMING" => flag("CLTAP_DEVICE_TIMING", &v).map(|b| cfg.device_timing = b),
                "CLTAP_TIMELINE" => flag("CLTAP_TIMELINE", &v).map(|b| cfg.timeline = b),
                "CLTAP_PFTRACE" => flag("CLTAP_PFTRACE", &v).map(|b| cfg.pftrace = b),
                "CLTAP_ROCPD" => flag("CLTAP_ROCPD", &v).map(|b| cfg.rocpd = b),
                "CLTAP_ATP" => flag("CLTAP_ATP", &v).map(|b| cfg.atp = b),
                "CLTAP_RENDER" => flag("CLTAP_RENDER", &v).map(|b| cfg.render = b),
                // The launcher's setting; it reaches the application's
                // environment and must not turn recording off.
                "CLTAP_LAYER" => Ok(()),
                "CLTAP_COUNTERS" => {
                    let names: Vec<String> =
                        v.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect();
                    let ok = |n: &str| {
                        // Metrics, instances (`TCC_HIT[3]`) and raw events
                        // (`SQ:4`, `TCC[3]:20`), as rocprofiler's input files allow.
                        n.chars().all(|c| c.is_ascii_alphanumeric() || "_[]:".contains(c))
                            && n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    };
                    if names.iter().all(|n| ok(n)) {
                        cfg.counters = names;
                        Ok(())
                    } else {
                        Err(ConfigError::Invalid { var: "CLTAP_COUNTERS", value: v.clone(), accepted: "comma-separated counter or metric names such as SQ_WAVES,GPUBusy,TCC_HIT[0], or raw events such as SQ:4 (see `cltap metrics list`)" })
                    }
                }
                "CLTAP_COUNTER_PASS" => match v.trim().parse::<u32>() {
                    Ok(n) => {
                        cfg.counter_pass = n;
                        Ok(())
                    }
                    Err(_) => Err(ConfigError::Invalid {
                        var: "CLTAP_COUNTER_PASS",
                        value: v.clone(),
                        accepted: "a pass number from 0",
                    }),
                },
                "CLTAP_LOG_DECODE" => flag("CLTAP_LOG_DECODE", &v).map(|b| cfg.decode = b),
                "CLTAP_LOG" => match v.trim() {
                    "file" | "" => {
                        let _: () = cfg.log_dest = LogDest::File;
                        Ok(())
                    }
                    "stderr" => {
                        let _: () = cfg.log_dest = LogDest::Stderr;
                        Ok(())
                    }
                    "stdout" => {
                        let _: () = cfg.log_dest = LogDest::Stdout;
                        Ok(())
                    }
                    _ => Err(ConfigError::Invalid {
                        var: "CLTAP_LOG",
                        value: v.clone(),
                        accepted: "file, stderr or stdout",
                    }),
                },
                "CLTAP_LOG_FILTER" => {
                    let items: Vec<(bool, String)> = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| match s.strip_prefix('-') {
                            Some(x) => (false, x.to_string()),
                            None => (true, s.to_string()),
                        })
                        .collect();
                    if items.iter().all(|(_, g)| {
                        !g.is_empty()
                            && g.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '*' || c == '?')
                    }) {
                        cfg.filter = items;
                        Ok(())
                    } else {
                        Err(ConfigError::Invalid { var: "CLTAP_LOG_FILTER", value: v.clone(), accepted: "comma-separated API name globs (letters, digits, _, *, ?), each optionally prefixed by '-'" })
                    }
                }
                "CLTAP_BUFFER_SIZE" => size("CLTAP_BUFFER_SIZE", &v).map(|n| cfg.buffer_size = n),
                "CLTAP_BUFFER_WATERMARK" => {
                    let t = v.trim();
                    if let Some(p) = t.strip_suffix('%') {
                        match p.parse::<u32>() {
                            Ok(p) if (1..=100).contains(&p) => {
                                let _: () = cfg.watermark = Watermark::Percent(p);
                                Ok(())
                            }
                            _ => Err(ConfigError::Invalid {
                                var: "CLTAP_BUFFER_WATERMARK",
                                value: v.clone(),
                                accepted: "1% to 100%, or a byte count",
                            }),
                        }
                    } else {
                        size("CLTAP_BUFFER_WATERMARK", &v).map(|n| cfg.watermark = Watermark::Bytes(n))
                    }
                }
                "CLTAP_BUFFER_POLICY" => match v.trim() {
                    "lossless" => {
                        let _: () = cfg.lossless = true;
                        Ok(())
                    }
                    "discard" => {
                        let _: () = cfg.lossless = false;
                        Ok(())
                    }
                    _ => Err(ConfigError::Invalid {
                        var: "CLTAP_BUFFER_POLICY",
                        value: v.clone(),
                        accepted: "lossless or discard",
                    }),
                },
                _ => Err(ConfigError::Unknown { var: k.clone(), value: v.clone(), known: nearest_variable(&k) }),
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
        // rocprofiler v1's input file: its metrics join CLTAP_COUNTERS'.
        if let Some(p) = cfg.rocp_input.clone() {
            match crate::metrics::read_input(&p) {
                Ok(input) => {
                    for n in input.names() {
                        if !cfg.counters.contains(&n) {
                            cfg.input_counters.push(n.clone());
                            cfg.counters.push(n);
                        }
                    }
                }
                Err(e) => errors.push(ConfigError::Input { var: "ROCP_INPUT", why: e.to_string() }),
            }
        }
        (cfg, errors)
    }
}
