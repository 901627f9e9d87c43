//! The Landlock helper as a standalone binary: `toolhost-sandbox-exec __sandbox-exec
//! --writable P … -- argv…` (the host binary offers the same entry as a hidden mode).

fn main() {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == toolhost_sandbox::helper::SANDBOX_EXEC_ARG) {
        args.remove(0);
    }
    toolhost_sandbox::helper::sandbox_exec_main(args)
}
