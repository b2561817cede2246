//! A timed command as bytes, for the spill file: a length, then the fields
//! in a fixed order, little-endian, strings and lists length-prefixed.

use super::{Command, CommandRef};

struct W<'a>(&'a mut Vec<u8>);

impl W<'_> {
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt(&mut self, v: Option<u64>) {
        self.0.push(v.is_some() as u8);
        self.u64(v.unwrap_or(0));
    }
    fn list(&mut self, v: &[usize]) {
        self.u32(v.len() as u32);
        for &x in v {
            self.u64(x as u64);
        }
    }
}

/// Appends `c` to `out`.
pub fn encode(c: &Command, out: &mut Vec<u8>) {
    encode_ref(&c.as_ref(), out)
}

/// Appends `c` to `out`.
pub fn encode_ref(c: &CommandRef, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut w = W(out);
    for v in [c.cmd_id, c.queue, c.context, c.queued, c.submit, c.start, c.end, c.enqueue_tsc, c.enqueue_end_tsc] {
        w.u64(v);
    }
    w.u32(c.tid);
    w.u32(c.cmd_type);
    w.u32(c.status as u32);
    w.opt(c.to_host.map(|x| x as u64));
    w.opt(c.bytes);
    w.str(c.api);
    w.str(c.device);
    w.0.push(c.kernel.is_some() as u8);
    w.str(c.kernel.unwrap_or(""));
    w.list(c.global);
    w.0.push(c.local.is_some() as u8);
    w.list(c.local.unwrap_or(&[]));
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

struct R<'a> {
    b: &'a [u8],
    at: usize,
}

impl R<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.at..self.at + n)?;
        self.at += n;
        Some(s)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn flag(&mut self) -> Option<bool> {
        Some(self.take(1)?[0] != 0)
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        Some(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    fn opt(&mut self) -> Option<Option<u64>> {
        let some = self.flag()?;
        let v = self.u64()?;
        Some(some.then_some(v))
    }
    fn list(&mut self) -> Option<Vec<usize>> {
        let n = self.u32()? as usize;
        (0..n.min(16)).map(|_| self.u64().map(|x| x as usize)).collect()
    }
}

/// The function name as the `'static` name the metadata holds.
fn api_name(s: &str) -> &'static str {
    crate::meta::by_name(s).map_or("?", |i| crate::meta::FUNCTIONS[i].name)
}

/// Reads one command from the start of `b`; returns it and the bytes used.
pub fn decode(b: &[u8]) -> Option<(Command, usize)> {
    let len = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
    let body = b.get(4..4 + len)?;
    let mut r = R { b: body, at: 0 };
    let mut v = [0u64; 9];
    for x in v.iter_mut() {
        *x = r.u64()?;
    }
    let [cmd_id, queue, context, queued, submit, start, end, enqueue_tsc, enqueue_end_tsc] = v;
    let (tid, cmd_type, status) = (r.u32()?, r.u32()?, r.u32()? as i32);
    let to_host = r.opt()?.map(|x| x as i64);
    let bytes = r.opt()?;
    let api = api_name(&r.str()?);
    let device = r.str()?.into();
    let has_kernel = r.flag()?;
    let kernel = r.str()?;
    let global = r.list()?;
    let has_local = r.flag()?;
    let local = r.list()?;
    let c = Command {
        cmd_id,
        api,
        tid,
        queue,
        context,
        device,
        cmd_type,
        kernel: has_kernel.then_some(kernel),
        global,
        local: has_local.then_some(local),
        bytes,
        queued,
        submit,
        start,
        end,
        status,
        enqueue_tsc,
        enqueue_end_tsc,
        to_host,
    };
    Some((c, 4 + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_back_as_written() {
        let a = Command {
            cmd_id: 7,
            api: "clEnqueueNDRangeKernel",
            tid: 42,
            queue: 0x1000,
            context: 0x2000,
            device: "NVIDIA H200".into(),
            cmd_type: 0x11F0,
            kernel: Some("add".into()),
            global: vec![1024, 2],
            local: None,
            bytes: None,
            queued: 1,
            submit: 2,
            start: 3,
            end: 4,
            status: -5,
            enqueue_tsc: 10,
            enqueue_end_tsc: 11,
            to_host: Some(-123),
        };
        let b = Command {
            cmd_id: 8,
            api: "clEnqueueReadBuffer",
            kernel: None,
            global: vec![],
            local: Some(vec![]),
            bytes: Some(4096),
            to_host: None,
            ..a.clone()
        };
        let mut buf = Vec::new();
        encode(&a, &mut buf);
        encode(&b, &mut buf);
        let (x, n) = decode(&buf).unwrap();
        let (y, m) = decode(&buf[n..]).unwrap();
        assert_eq!((x, y), (a, b));
        assert_eq!(n + m, buf.len());
        assert!(decode(&buf[..n - 1]).is_none(), "a cut record is not read");
    }
}
