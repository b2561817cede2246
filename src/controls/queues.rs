//! In-order queues (`CLTAP_IN_ORDER_QUEUES`): the properties the driver
//! gets instead of the application's, at both ways of creating a queue.
//! A device-side queue (`CL_QUEUE_ON_DEVICE`) must be out of order (OpenCL
//! 3.0 §5.1), so its properties are left as they are.

use crate::devtime::queues::{read_list, CL_QUEUE_PROPERTIES};

pub const CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE: u64 = 1;
pub const CL_QUEUE_ON_DEVICE: u64 = 1 << 2;

/// `clCreateCommandQueue`'s properties, in order.
pub fn in_order_bits(props: u64) -> u64 {
    if props & CL_QUEUE_ON_DEVICE != 0 {
        props
    } else {
        props & !CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    }
}

/// A property list's pairs (without the terminator) made in order,
/// terminated; `None` where nothing changes (the application's list then
/// goes through as it is).
pub fn in_order_pairs(mut pairs: Vec<u64>) -> Option<Vec<u64>> {
    let kv = pairs.chunks_exact_mut(2).find(|kv| kv[0] == CL_QUEUE_PROPERTIES)?;
    if kv[1] == in_order_bits(kv[1]) {
        return None;
    }
    kv[1] = in_order_bits(kv[1]);
    pairs.push(0);
    Some(pairs)
}

/// [`in_order_pairs`] of the list at `list`.
///
/// # Safety
/// `list` is NULL or a zero-terminated property list.
pub unsafe fn in_order_list(list: *const u64) -> Option<Vec<u64>> {
    // SAFETY: the caller passes NULL or a zero-terminated list (# Safety), which is what
    // read_list reads.
    in_order_pairs(unsafe { read_list(list) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_out_of_order_bit_goes_and_never_from_a_device_queue() {
        assert_eq!(in_order_bits(0b11), 0b10);
        assert_eq!(in_order_bits(0b10), 0b10);
        assert_eq!(in_order_bits(0b111), 0b111, "a device queue stays out of order");
        let list = vec![0x1094, 4096, CL_QUEUE_PROPERTIES, 3];
        assert_eq!(in_order_pairs(list), Some(vec![0x1094, 4096, CL_QUEUE_PROPERTIES, 2, 0]));
        assert_eq!(in_order_pairs(vec![CL_QUEUE_PROPERTIES, 2]), None);
        assert_eq!(in_order_pairs(vec![]), None);
    }
}
