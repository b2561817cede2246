//! The rows rocpd's database gets at the end of the run: kernel dispatches
//! with their counters, the OpenCL commands as dispatches and copies, the
//! memory trace's allocations, and each kernel symbol's resources.

use super::*;

impl Rocpd {
    /// The kernel dispatch rows: one per dispatch. An NDRange that became
    /// an HSA dispatch (the counter files' join, by identity) is one row
    /// with both identities: the dispatch's times, queue and number, and
    /// the enqueue's correlation id (as rocprofv3 ties a kernel to the API
    /// call that launched it); `extdata` names both. Counters are the
    /// requested metrics, by name, evaluated as the counter files do.
    pub(super) fn dispatches(&mut self, commands: &[crate::devtime::Command], end: &End<'_>) -> Result<(), Error> {
        let pass = std::mem::take(&mut self.collector).finish(commands.to_vec());
        let values = crate::counters::files::values(&pass);
        let derived = crate::counters::files::derived(&pass);
        let by_seq: HashMap<u64, usize> =
            pass.rows.iter().enumerate().filter_map(|(i, r)| Some((r.hsa.as_ref()?.seq, i))).collect();
        let by_cmd: HashMap<u64, usize> =
            pass.rows.iter().enumerate().filter_map(|(i, r)| Some((r.cmd_id?, i))).collect();
        let mut written = std::collections::HashSet::new();
        for (seq, d) in std::mem::take(&mut self.hsa_rows) {
            let i = by_seq.get(&seq).copied();
            let cmd = i.and_then(|i| pass.rows[i].cmd_id);
            let extdata = identities(cmd, Some((seq, d.queue_id, d.queue_index, d.correlation_id)));
            let event = self.w().dispatch(&rocpd::Dispatch {
                track: d.track,
                kernel: d.kernel,
                dispatch_id: seq,
                start: d.start,
                end: d.end,
                grid: d.grid,
                workgroup: d.workgroup,
                private_segment: d.private_segment,
                group_segment: d.group_segment,
                region: &d.name,
                correlation_id: cmd.unwrap_or(d.correlation_id),
                extdata: &extdata,
            })?;
            if let Some(c) = cmd {
                written.insert(c);
            }
            if let Some(i) = i {
                self.pmc_values(d.agent, event, &pass.names, &derived, &values[i])?;
            }
        }
        // The timed NDRanges whose dispatch has no row of its own: their
        // device times from the runtime's events.
        let offsets = end.offsets();
        for c in commands.iter().filter(|c| c.status == 0 && c.kernel.is_some() && !written.contains(&c.cmd_id)) {
            let off = offsets.get(&c.queue).map_or(0, |o| o.0);
            let start = crate::devtime::on_host(c.start, off);
            let agent = self.agent_of(Err(&c.device), self.device_kind(&c.device))?;
            let track = self.queue_track(agent, c.queue, format!("{} queue {:016X}", c.device, c.queue))?;
            let dim = |v: &[usize], i: usize| v.get(i).map_or(1, |x| *x as u64);
            let local = c.local.clone().unwrap_or_default();
            let kernel = self.kernel_symbol(agent, c.kernel.as_deref().unwrap_or_default(), 0)?;
            let i = by_cmd.get(&c.cmd_id).copied();
            // Its dispatch was not timed: no doorbell correlation to name.
            let hsa = i.and_then(|i| pass.rows[i].hsa.as_ref()).map(|h| (h.seq, h.queue_id, h.queue_index, 0));
            let event = self.w().dispatch(&rocpd::Dispatch {
                track,
                kernel,
                dispatch_id: c.cmd_id,
                start,
                end: start + c.duration_ns(),
                grid: [dim(&c.global, 0), dim(&c.global, 1), dim(&c.global, 2)],
                workgroup: [dim(&local, 0), dim(&local, 1), dim(&local, 2)],
                private_segment: 0,
                group_segment: 0,
                region: c.api,
                correlation_id: c.cmd_id,
                extdata: &identities(Some(c.cmd_id), hsa),
            })?;
            if let Some(i) = i.filter(|i| pass.rows[*i].hsa.is_some()) {
                self.pmc_values(agent, event, &pass.names, &derived, &values[i])?;
            }
        }
        Ok(())
    }

    /// One dispatch's counter values, a `rocpd_pmc_event` per requested
    /// metric that has one, named as requested (`SQ_WAVES`, as rocprofv3
    /// writes them).
    pub(super) fn pmc_values(
        &mut self,
        agent: i64,
        event: i64,
        names: &[String],
        derived: &[bool],
        values: &[Option<f64>],
    ) -> Result<(), Error> {
        for ((name, derived), value) in names.iter().zip(derived).zip(values) {
            let Some(value) = value else { continue };
            let pmc = match self.pmcs.get(&(agent, name.clone())) {
                Some(&p) => p,
                None => {
                    let (nid, pid) = (self.w().nid, self.pid);
                    let p = self.w().insert(
                        "rocpd_info_pmc",
                        &["nid", "pid", "agent_id", "target_arch", "name", "symbol", "value_type", "is_derived"],
                        params![nid, pid, agent, "GPU", name, name, "ABS", *derived as i64],
                    )?;
                    self.pmcs.insert((agent, name.clone()), p);
                    p
                }
            };
            self.w().insert("rocpd_pmc_event", &["event_id", "pmc_id", "value"], params![event, pmc, *value])?;
        }
        Ok(())
    }

    /// An OpenCL device's rocpd agent type: `CPU` where the layer noted that it runs on the
    /// host's cores (PoCL, Intel's CPU runtime), else `GPU`.
    pub(super) fn device_kind(&self, device: &str) -> &'static str {
        if self.cpu_devices.contains(device) {
            "CPU"
        } else {
            "GPU"
        }
    }

    /// The OpenCL commands, known at the end: kernels as dispatches (with
    /// the HSA dispatches, [`Self::dispatches`]) and transfers as memory
    /// copies, as the summary's tables count them.
    pub(super) fn commands(&mut self, end: &End<'_>) -> Result<(), Error> {
        let mut all = Vec::new();
        end.commands().for_each(|c| all.push(c));
        self.dispatches(&all, end)?;
        let offsets = end.offsets();
        for c in all.into_iter().filter(|c| c.status == 0) {
            let (Some(dir), Some(bytes)) = (c.direction(), c.bytes) else { continue };
            let off = offsets.get(&c.queue).map_or(0, |o| o.0);
            let start = crate::devtime::on_host(c.start, off);
            let agent = self.agent_of(Err(&c.device), self.device_kind(&c.device))?;
            let track = self.queue_track(agent, c.queue, format!("{} queue {:016X}", c.device, c.queue))?;
            let (src, dst) = match dir {
                "device to host" => (agent, self.host_agent),
                "host to device" => (self.host_agent, agent),
                _ => (agent, agent),
            };
            let name = c.api.trim_start_matches("clEnqueue").to_string();
            self.w().copy(&rocpd::Copy {
                track,
                name: &name,
                start,
                end: start + c.duration_ns(),
                src_agent: src,
                dst_agent: dst,
                size: bytes,
                correlation_id: c.cmd_id,
            })?;
        }
        Ok(())
    }

    /// The memory trace's rows (`CLTAP_MEMORY`), one each, on a track per
    /// calling thread and device label (the first the row counts against).
    pub(super) fn allocations(&mut self, m: &crate::memory::Report) -> Result<(), Error> {
        let mut tracks: HashMap<(u32, String), i64> = HashMap::new();
        for r in &m.rows {
            let label = r.devices.first().cloned().unwrap_or_else(|| r.owner.clone());
            let track = match tracks.get(&(r.thread, label.clone())) {
                Some(&t) => t,
                None => {
                    let (nid, pid) = (self.w().nid, self.pid);
                    let name_id = self.w().string(&format!("memory: {label}"))?;
                    let t = self.w().insert(
                        "rocpd_track",
                        &["nid", "pid", "tid", "name_id"],
                        params![nid, pid, r.thread, name_id],
                    )?;
                    tracks.insert((r.thread, label), t);
                    t
                }
            };
            let extdata = serde_json::json!({
                "record": r.record, "alloc_record": r.alloc_record, "thread": r.thread, "kind": r.kind,
                "flags": r.flags, "owner": r.owner, "devices": r.devices,
            })
            .to_string();
            let op = match r.op {
                cltap_formats::memory::Op::Alloc => "ALLOC",
                cltap_formats::memory::Op::Free => "FREE",
            };
            self.w().allocation(&rocpd::Allocation {
                track,
                name: &r.call,
                op,
                start: r.time_ns,
                end: r.time_ns,
                address: r.address,
                size: r.bytes,
                correlation_id: 0,
                extdata: &extdata,
            })?;
        }
        Ok(())
    }

    /// Each kernel symbol's registers and segments, from its descriptor:
    /// register counts as gfx9 encodes them (granules of 4 VGPRs and 8
    /// SGPRs, an upper bound of what the compiler used; no accumulation
    /// VGPRs before gfx90a).
    pub(super) fn kernel_resources(&mut self) -> Result<(), Error> {
        let all = std::mem::take(&mut self.descriptors);
        for (object, kd) in all {
            let r = rocpd::KernelResources {
                sgprs: kd.gfx9_sgprs(),
                arch_vgprs: kd.gfx9_vgprs(),
                accum_vgprs: 0,
                group_segment: kd.group_segment_fixed_size,
                private_segment: kd.private_segment_fixed_size,
                kernarg_segment: kd.kernarg_size,
            };
            self.w().kernel_resources(object, &r)?;
        }
        Ok(())
    }
}
