//! `capget`/`capset` of the calling thread (ABI version 3: two 32-bit words per set), for the
//! host's file-access overrides ([`crate::privileges`]) and the helper's capability drop
//! ([`crate::helper::capabilities`]).

#[repr(C)]
struct Header {
    version: u32,
    pid: i32,
}

/// One 32-bit word of each set.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Data {
    pub effective: u32,
    pub permitted: u32,
    pub inheritable: u32,
}

const VERSION_3: u32 = 0x2008_0522;

/// This thread's sets.
pub fn get() -> std::io::Result<[Data; 2]> {
    let mut header = Header { version: VERSION_3, pid: 0 };
    let mut data = [Data::default(); 2];
    // SAFETY: capget with a v3 header and room for two data structs, as the ABI requires.
    if unsafe { libc::syscall(libc::SYS_capget, &mut header as *mut Header, data.as_mut_ptr()) }
        != 0
    {
        return Err(std::io::Error::last_os_error());
    }
    Ok(data)
}

/// Sets this thread's sets (the kernel refuses any raise beyond what is permitted).
pub fn set(data: &[Data; 2]) -> std::io::Result<()> {
    let mut header = Header { version: VERSION_3, pid: 0 };
    // SAFETY: capset with a v3 header and two data structs.
    if unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
