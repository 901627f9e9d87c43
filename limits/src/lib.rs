//! Every limit of `docs/limits.md`, defined once, for the host and the tool components alike.
//!
//! Each constant says what it protects, the contract section it serves (`docs/contract.md`), and
//! why this value. The table in
//! `docs/limits.md` lists each of these names with its value; keep both true together.
#![no_std]

/// Largest model-visible result text, footer included (`docs/contract.md#spill-files`):
/// 8,000 tokens × 4 bytes, the size of one tool message in the request projection.
pub const MAX_RESULT_BYTES: usize = 32_000;

/// Largest structured result (toolhost:tool 0.2.0), as JSON text: room for the largest field
/// a workspace tool returns whole for a program to read (a 512 KiB preview, a 256 KiB diff,
/// JSON-escaped) with its metadata, while the model-visible text stays bounded by
/// [`MAX_RESULT_BYTES`]. A tool must bound it itself: the host withholds a larger one.
pub const MAX_STRUCTURED_BYTES: usize = 2 * 1024 * 1024;

/// Largest tool description a component may declare, in bytes: the model reads every tool's
/// description on every request (`tools/list`), so a third-party one is bounded; a paragraph
/// or a page is plenty. Checked once, when the definition is first read.
pub const MAX_DESCRIPTION_BYTES: usize = 16 * 1024;

/// Largest input or output schema a component may declare, as JSON text (each checked on
/// its own): the input schema goes to the model with every request, and the host compiles
/// both. Property descriptions and enums count.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;

/// Deepest a schema may nest, in JSON levels (an object or an array is one), counting a
/// `$ref`'s target as if written where the `$ref` is: validation recurses this deep.
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// Most JSON values a schema may have with every `$ref` written out where it is used:
/// bounds what compiling and validating it costs (a few kilobytes of `anyOf`s that refer
/// twice to the next level are 2^levels schemas written out).
pub const MAX_SCHEMA_NODES: usize = 10_000;

/// Most values one `enum` of a schema may list.
pub const MAX_SCHEMA_ENUM_VALUES: usize = 1_000;

/// Most regular expressions (`pattern` values and `patternProperties` keys, with every
/// `$ref` written out) one schema may have; each compiles within [`SCHEMA_REGEX_SIZE_LIMIT`].
pub const MAX_SCHEMA_PATTERNS: usize = 100;

/// Most memory one schema regular expression may compile to, and the most its lazy DFA may
/// cache, in bytes. Patterns run on a linear-time engine (no backtracking, so no
/// lookaround and no backreference); one past this is refused when the schema is checked.
pub const SCHEMA_REGEX_SIZE_LIMIT: usize = 256 * 1024;

/// Bytes kept free for a footer when a tool bounds its own text (`docs/contract.md#read`);
/// `read` stops at `MAX_RESULT_BYTES - FOOTER_RESERVE_BYTES`.
pub const FOOTER_RESERVE_BYTES: usize = 512;

/// Largest spill file; writing stops there and the result says so (`docs/contract.md#spill-files`).
pub const MAX_SPILL_BYTES: u64 = 64 * 1024 * 1024;

/// grep/glob keep a full list in memory up to this size before streaming it to the spill
/// file, so small overflows cost no file I/O until needed (`docs/contract.md#spill-files`).
pub const SPILL_BUFFER_BYTES: usize = 256 * 1024;

/// Spill directories older than this are removed at start (`docs/contract.md#spill-files`), in seconds.
pub const SPILL_RETENTION_SECS: u64 = 7 * 24 * 60 * 60;

/// `read` returns at most this many lines (`docs/contract.md#read`).
pub const READ_MAX_LINES: u32 = 2000;

/// `read` cuts a line to this many characters (`docs/contract.md#read`).
pub const READ_MAX_LINE_CHARS: usize = 2000;

/// While reading, only this many bytes of a line are kept; the rest is discarded as it
/// streams by, so a 3 MB line never sits in memory (`docs/contract.md#read`).
pub const READ_LINE_KEEP_BYTES: usize = 8000;

/// `read` stops before its content passes this many bytes, after a whole line (`docs/contract.md#read`).
pub const READ_MAX_CONTENT_BYTES: usize = MAX_RESULT_BYTES - FOOTER_RESERVE_BYTES;

/// `write` content, `edit` files and `newString`, and undo/reapply targets are at most this
/// many bytes of UTF-8 (`docs/contract.md#write`, `docs/contract.md#edit`, `docs/contract.md#file-changes-and-undo`).
pub const MAX_EDIT_FILE_BYTES: usize = 1024 * 1024;

/// An `apply_patch` patch is at most this many bytes (`docs/contract.md#apply_patch`).
pub const MAX_PATCH_BYTES: usize = 8 * 1024 * 1024;

/// `str_replace_based_edit_tool`'s `view` reads files of at most this many bytes
/// (`docs/contract.md#str_replace_based_edit_tool`).
pub const VIEW_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// OpenAI's `shell` runs at most this many commands in one call
/// (`docs/contract.md#openai-shell`).
pub const SHELL_MAX_COMMANDS: usize = 50;

/// A `multi_edit` call makes at most this many edits (`docs/contract.md#multi_edit`).
pub const MAX_MULTI_EDITS: usize = 100;

/// One change (`workspace.commit-all`, an `apply_patch` patch) writes at most this many files
/// (`docs/contract.md#apply_patch`).
pub const MAX_COMMIT_FILES: usize = 1_000;

/// grep returns at most this many matching lines in all (`docs/contract.md#grep`).
pub const GREP_MAX_LINES: usize = 250;

/// grep shows at most this many lines of one file (`docs/contract.md#grep`).
pub const GREP_MAX_LINES_PER_FILE: usize = 50;

/// grep cuts a matching line to this many bytes (`docs/contract.md#grep`).
pub const GREP_MAX_LINE_BYTES: usize = 2000;

/// grep's file modes list at most this many files (`docs/contract.md#grep`).
pub const GREP_MAX_FILES: usize = 250;

/// grep skips a file with a line longer than this (`docs/contract.md#grep`).
pub const GREP_MAX_LINE_LENGTH: u64 = 64 * 1024 * 1024;

/// glob returns at most this many files (`docs/contract.md#glob`).
pub const GLOB_MAX_RESULTS: usize = 100;

/// grep and glob stop scanning after this many milliseconds and report "at least"
/// (`docs/contract.md#grep`, `docs/contract.md#glob`).
pub const SCAN_TIMEOUT_MS: u64 = 30_000;

/// `list` shows this many entries when no limit is given (`docs/contract.md#list`).
pub const LIST_DEFAULT_LIMIT: u32 = 200;

/// `list` shows at most this many entries per page (`docs/contract.md#list`).
pub const LIST_MAX_LIMIT: u32 = 2000;

/// `workspace_git` diff/show: bytes of git's stdout kept when `max_bytes` is not given
/// (docs/workspace-tools.md#workspace_git); past it the middle is cut (head + tail). 256 KiB
/// holds a large change whole, and JSON-escaped it still fits the structured result.
pub const GIT_DEFAULT_MAX_BYTES: usize = 256 * 1024;

/// `workspace_git`: the largest `max_bytes` accepted (docs/workspace-tools.md#workspace_git);
/// a larger one is invalid input, not clamped. The structured result's own bound
/// ([`MAX_STRUCTURED_BYTES`]) may still cut the kept stdout further, and says so.
pub const GIT_MAX_MAX_BYTES: usize = 4 * 1024 * 1024;

/// `workspace_git` log: commits listed when `max_count` is not given
/// (docs/workspace-tools.md#workspace_git).
pub const GIT_DEFAULT_MAX_COUNT: u32 = 20;

/// `workspace_git` log: the largest `max_count` accepted (docs/workspace-tools.md#workspace_git);
/// 100 one-line commits stay far inside the result text.
pub const GIT_MAX_COUNT: u32 = 100;

/// bash keeps this many bytes from the start of the output (`docs/contract.md#bash`).
pub const BASH_HEAD_BYTES: usize = 2 * 1024;

/// bash keeps this many bytes from the end of the output (`docs/contract.md#bash`).
pub const BASH_TAIL_BYTES: usize = 14 * 1024;

/// bash's default timeout in milliseconds (`docs/contract.md#bash`).
pub const BASH_DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// bash's largest timeout in milliseconds (`docs/contract.md#bash`).
pub const BASH_MAX_TIMEOUT_MS: u64 = 120_000;

/// The largest `timeout_ms` of one approved run of a tool that asks before every run
/// (`workspace_shell`, `workspace_tests`; docs/workspace-tools.md#approvals): the host's
/// `process.run` takes up to this for them instead of [`BASH_MAX_TIMEOUT_MS`].
pub const APPROVED_RUN_MAX_TIMEOUT_MS: u64 = 600_000;

/// `workspace_shell`'s default `timeout_ms`.
pub const SHELL_DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// `workspace_tests run`'s default `timeout_ms`.
pub const TESTS_DEFAULT_TIMEOUT_MS: u64 = 300_000;

/// How long a call with an approved run may go on past the run's own timeout (to start it
/// and to read and report its output) before the host stops the call.
pub const APPROVED_RUN_GRACE_MS: u64 = 30_000;

/// The longest command line (program and arguments, as the approval shows them: escaped,
/// one line) of a run a person is asked about (docs/workspace-tools.md#approvals). A longer
/// run is refused before anyone is asked, so the whole command is always on the screen the
/// user answers from: 400 arguments of 30 KB would otherwise scroll every other line of the
/// question away. A long script belongs in a file the run executes.
pub const APPROVAL_MAX_COMMAND_CHARS: usize = 1_500;

/// The longest of each other field the model writes into a run's approval question, as
/// shown (escaped): the working directory, the environment line and the model's `purpose`.
/// Longer: refused before anyone is asked, like [`APPROVAL_MAX_COMMAND_CHARS`].
pub const APPROVAL_MAX_FIELD_CHARS: usize = 1_000;

/// The most characters of package scripts (`package.json`'s `scripts` that `npm test` and the
/// like run) an approval question shows, all scripts together. Past it the question names
/// each script it does not show whole, with its length and the file to read it in.
pub const APPROVAL_MAX_SCRIPT_CHARS: usize = 1_500;

/// The largest `package.json` the host reads to show a run's package scripts. A larger one is
/// not read, and the question says so (its scripts are not shown, and the user is told).
pub const APPROVAL_MAX_PACKAGE_JSON_BYTES: u64 = 1024 * 1024;

/// How much of a program file the host reads to show a script's `#!` line on an approval
/// (the kernel reads no more of it either: `BINPRM_BUF_SIZE`).
pub const APPROVAL_SCRIPT_HEADER_BYTES: usize = 256;

/// `workspace_preview`: the default and largest `max_bytes`, the bytes of one preview
/// (`docs/workspace-tools.md#workspace_preview`). 512 KiB holds a long README rendered to HTML;
/// a larger value is refused, not clamped. The text the model sees is still cut at
/// [`MAX_RESULT_BYTES`] (the whole rendering spilled).
pub const PREVIEW_MAX_BYTES: usize = 512 * 1024;

/// `workspace_preview`: largest source it renders or counts (a file's size, or inline
/// `content`), in bytes; a larger one fails with `LOCAL_EXECUTOR_UNSUPPORTED_CONTENT`
/// (`artifact_summary` still reports its metadata and says "at least" for its lines). 8 MiB
/// bounds what one call holds in guest memory: the source, its HTML and the sanitized copy.
pub const PREVIEW_MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;

/// How often `toolhost mcp` looks whether the installed tools changed (`tools.json`), in
/// milliseconds.
pub const MCP_INSTALLED_POLL_MS: u64 = 500;

/// `toolhost conformance` makes all of its calls (generated inputs, deadline and cancel,
/// inspections) within this many milliseconds, whatever the component does: inputs stop
/// being fed once it is spent (see [`CONFORMANCE_INPUTS_BUDGET_MS`]) and every later call's
/// deadline is cut to what is left.
pub const CONFORMANCE_CALLS_BUDGET_MS: u64 = 25_000;

/// Of [`CONFORMANCE_CALLS_BUDGET_MS`], the generated inputs get at most this many
/// milliseconds, so the deadline, cancel and inspect checks always run.
pub const CONFORMANCE_INPUTS_BUDGET_MS: u64 = 18_000;

/// `toolhost conformance` stops feeding generated inputs once this many of them ran past
/// their deadline: each more would only wait for the deadline again.
pub const CONFORMANCE_MAX_DEADLINE_HITS: usize = 2;

/// An installed component's file must have been unchanged this many milliseconds before it
/// is hashed for its stamp to be kept (`docs/extending.md#what-a-session-pays-for-installed-tools`):
/// a write landing in the same clock tick as the hash then cannot share the stamp. Two
/// seconds covers the coarsest file-time granularity of the file systems a data dir lives on.
pub const INSTALLED_STAMP_QUIESCENT_MS: u64 = 2_000;

/// A tool component that crashes (traps or runs out of memory) on this many calls in a row
/// is disabled for the rest of the session.
pub const COMPONENT_MAX_CONSECUTIVE_CRASHES: u32 = 3;

/// The longest `timeoutMs` a session call request may set: the call's deadline (a component
/// is stopped at it, or at the runtime's own 120 s bound, whichever is first).
pub const MAX_CALL_TIMEOUT_MS: u64 = 3_600_000;

/// The longest a call waits for a person's answer to its approval (an escalation, or a run
/// of a tool that asks before every run), from when it asks; a call whose own deadline comes
/// first stops waiting then (`toolhost_core::approval::wait_for_approval`, the one wait rule).
/// Past it the call ends with `timeout` and nothing of it runs. This keeps a client or a
/// terminal that never answers from holding a call, and everything queued behind it, for
/// ever; two minutes is the runtime's own bound on a call without a deadline, and ample time
/// to read the question and answer.
pub const APPROVAL_MAX_WAIT_MS: u64 = 120_000;

/// `sandboxPermissions.paths` has 1 to this many entries (`docs/contract.md#escalation-parameters`).
pub const MAX_ESCALATION_PATHS: usize = 16;

/// Most directory entries bash's protected-entry scan visits per call, over all writable roots
/// (`docs/contract.md#bash`; `toolhost_sandbox::scan`). The scan finds every git dir and sensitive file the OS
/// sandbox must pin read-only and, after the call, every protected entry bash created. When a
/// tree is larger, bash refuses to run and says so (failing closed: an unscanned part could
/// hold a writable `.git/config`). 200,000 entries take ~0.1 s to list on a warm cache.
pub const PROTECTED_SCAN_ENTRIES: usize = 200_000;

/// Most bytes of git metadata and sensitive files the Landlock tier saves before a call to put
/// them back after it (`toolhost_sandbox::protected::Snapshot`): they are small; more, and bash
/// refuses to run rather than leave them unrestorable.
pub const MAX_PROTECTED_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

/// Most entries of one directory the Landlock tier's plan lists when it holds something hidden
/// (`toolhost_sandbox::landlock_tier::plan`): the rest of that directory is not granted
/// (failing closed).
pub const LANDLOCK_PLAN_MAX_DIR_ENTRIES: usize = 10_000;

/// Most bytes of the registry of data dirs (`~/.toolhost/data-dirs`, one path a line) that
/// toolhost reads at start: the registry is read by every start, and at 4 KiB a path this holds
/// a thousand data dirs; one that outgrew it is no longer rewritten (a new data dir is then
/// not known to other instances).
pub const MAX_DATA_DIR_REGISTRY_BYTES: usize = 256 * 1024;

/// Deepest directory level bash's protected-entry scan descends to; a deeper tree fails closed
/// like [`PROTECTED_SCAN_ENTRIES`]. No real source tree is this deep; a tree this deep is made
/// to hide from the scan.
pub const PROTECTED_SCAN_DEPTH: usize = 64;

/// Most bytes of one ignore file (`.gitignore`, `.ignore`, `.git/info/exclude`) a grep or
/// glob walk reads (`toolhost_core::walk`); the rest is not read. The host reads these files
/// itself, outside every sandbox, and the agent can write them: real ones are a few KiB, and
/// one that never ends (a huge file of patterns) must not cost the walk its memory.
pub const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;

/// Longest the bubblewrap self-check may take, in milliseconds (`docs/contract.md#bash`): it launches `true` in
/// a sandbox (~6 ms); a `bwrap` that hangs would otherwise hang every command that needs it.
pub const SANDBOX_SELF_CHECK_TIMEOUT_MS: u64 = 10_000;

/// Most processes and threads one bash call may have at once (`docs/contract.md#bash`; a cgroup `pids.max`):
/// a fork bomb ends at this many instead of exhausting the machine (root ignores
/// `RLIMIT_NPROC`). Builds with many parallel jobs stay far below it (threads count too).
pub const BASH_MAX_PIDS: u64 = 1024;

/// Most memory one bash call may use, in MiB (`docs/contract.md#bash`; a cgroup memory limit): past it the
/// kernel kills a process of the call, not of the host. 3 GiB holds a large compile; a 4 GiB
/// allocation does not fit. `policy.json` may raise or lower both (`"limits"`).
pub const BASH_MAX_MEMORY_MIB: u64 = 3 * 1024;

/// Longest request accepted on any transport: one `toolhost session` JSON Lines line, one MCP
/// stdio line (neither counting its newline) and one MCP HTTP request body. A longer one is
/// discarded as it streams by, so memory stays bounded whatever a client sends, and answered
/// with an error naming this limit; the session or server goes on. 16 MiB holds the largest
/// legitimate request with room to spare: a `write` of `MAX_EDIT_FILE_BYTES` whose every byte
/// is JSON-escaped as `\u00XX` (6 MiB).
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// `toolhost mcp --listen`: a request head (request line and headers) must arrive whole within
/// this many seconds of its first byte, or the connection is closed. This stops a client that
/// opens connections and sends half a header (slowloris) from holding sockets and tasks; 10 s
/// is far beyond any real client's head, which arrives in one packet.
pub const MCP_HEADER_READ_TIMEOUT_SECS: u64 = 10;

/// `toolhost mcp --listen`: a connection with no request in flight is closed after this many
/// seconds without a new request, so idle keep-alive connections do not pile up. An SSE
/// response still streaming (a call running, a standalone GET stream) is a request in flight:
/// never idle. 60 s outlives the keep-alive pools of common clients (httpx 5 s, undici 4 s),
/// so the client, not the server, ends an idle connection and no request races a close.
pub const MCP_IDLE_TIMEOUT_SECS: u64 = 60;

/// `toolhost mcp --listen`: at most this many live MCP sessions (2025-11-25 revision, one per
/// `initialize`); the next `initialize` is refused with 503 until one ends (HTTP DELETE, or
/// rmcp's idle expiry). Each session holds a worker task and buffers; the bound keeps a
/// client that initializes in a loop from exhausting memory. 64 is far more than the clients
/// of one workspace open at once.
pub const MCP_MAX_SESSIONS: usize = 64;

/// `toolhost mcp` with reads confined: most roots taken from one client's `roots/list`
/// answer; the rest are ignored with a line on stderr. Each root is a bind mount of bash's
/// sandbox and a rule of the Seatbelt profile.
pub const MCP_MAX_ROOTS: usize = 64;

/// `toolhost mcp` with reads confined: longest `file://` URI of a root, in bytes; a longer one
/// is ignored with a line on stderr (a path is at most 4,096 bytes on Linux).
pub const MCP_MAX_ROOT_URI_BYTES: usize = 8 * 1024;

/// `toolhost mcp` with reads confined: how long the server waits for a client's answer to
/// `roots/list`, in milliseconds. A call that arrives before the first answer waits for it at
/// most this long; with no answer by then, the operator's read roots stay the session's.
pub const MCP_ROOTS_TIMEOUT_MS: u64 = 5_000;

/// Most spills one call may hold unfinished at once (toolhost:tool `call.spill`): the host
/// buffers up to [`SPILL_BUFFER_BYTES`] of each in memory before it reaches the disk, so
/// without this bound a component opening thousands of spills would hold gigabytes of the
/// host's memory, none of it counted against the component's own. Opening one more fails the
/// call with an error naming this limit. The built-in tools hold one; a parallel call's parts
/// share theirs.
pub const MAX_CALL_OPEN_SPILLS: usize = 8;

/// Most spill files one call may create (toolhost:tool `call.spill`, finished or not, and the
/// files of the programs it runs): finished ones stay in the spill dir for
/// [`SPILL_RETENTION_SECS`]. Opening one more fails the call with an error naming this limit.
pub const MAX_CALL_SPILL_FILES: usize = 32;

/// Most bytes one call may put in spill files, over all of them (toolhost:tool `call.spill`
/// and the programs it runs): four full spill files ([`MAX_SPILL_BYTES`] each). A component's
/// append past it fails the call with an error naming this limit; a program's output past it
/// is not saved (its result says so).
pub const MAX_CALL_SPILL_BYTES: u64 = 4 * MAX_SPILL_BYTES;

/// Capacity of a call's progress channel (`docs/contract.md#progress`): at most this many progress events wait
/// between a running call and its transport; more are dropped (progress is never needed).
pub const PROGRESS_CHANNEL_CAPACITY: usize = 64;

/// Longest progress message a component may report (`call.report-progress`), in bytes; a
/// longer one is cut at a character boundary. With [`PROGRESS_CHANNEL_CAPACITY`] it bounds
/// the progress one call has buffered to 1 MiB.
pub const MAX_PROGRESS_MESSAGE_BYTES: usize = 16 * 1024;

/// `toolhost session`: most bytes of progress events queued for a client that reads more
/// slowly than calls report; past it new progress events are dropped (and counted in the
/// call's result event, `droppedProgress`). Results, errors and acknowledgements are never
/// dropped: see [`SESSION_MAX_QUEUED_OUTPUT_BYTES`].
pub const SESSION_MAX_QUEUED_PROGRESS_BYTES: usize = 4 * 1024 * 1024;

/// `toolhost session`: most bytes of results, errors and acknowledgements queued for a slow
/// client; past it the session waits for the client to read before it queues the next (so
/// it stops reading requests and starting calls), instead of dropping one. A single event
/// larger than this is still queued alone.
pub const SESSION_MAX_QUEUED_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// `toolhost mcp --listen`: most connections open at once (further lowered to half the
/// process's descriptor limit, so the tools keep descriptors to work with). Past it a new
/// connection closes the oldest unauthenticated one, or is itself closed when every open one
/// has authenticated.
pub const MCP_MAX_CONNECTIONS: usize = 256;

/// `toolhost mcp --listen`: most connections open at once that have not yet sent a request
/// with the bearer token (further lowered to a quarter of the connection bound). A new
/// connection past it closes the oldest unauthenticated one, so connections that send
/// nothing cannot keep an authenticated client out, whatever their number.
pub const MCP_MAX_UNAUTHENTICATED_CONNECTIONS: usize = 32;

/// `toolhost mcp --listen`: a connection is closed when no request carrying the bearer token
/// has arrived this many seconds after it was accepted (or any request, with `--no-auth`).
/// Shorter than [`MCP_IDLE_TIMEOUT_SECS`], which applies once it has; as long as
/// [`MCP_HEADER_READ_TIMEOUT_SECS`], since a real client sends its first request at once.
pub const MCP_AUTH_TIMEOUT_SECS: u64 = 10;

/// `toolhost mcp --listen`: `/readyz` waits this long for the session store (and for the
/// sandbox's first check) before it answers 503: an orchestrator's probe has a timeout of its
/// own (Kubernetes' default is 1 s), and a store across the network must not hang it.
pub const READY_CHECK_TIMEOUT_MS: u64 = 800;

/// `toolhost session`: most requests (calls, undo, reapply) read but not yet answered; the
/// next one is answered at once with an error naming this limit, and never run. Input is
/// read while a call runs (so `cancel` reaches it), so without a bound a client could queue
/// requests faster than they run.
pub const SESSION_MAX_QUEUED_REQUESTS: usize = 64;

/// `toolhost session`: most bytes of request lines read but not yet answered (each is at
/// most [`MAX_REQUEST_BYTES`], held parsed until it runs); the next request past it is
/// refused like one past [`SESSION_MAX_QUEUED_REQUESTS`]. A lone request always fits.
pub const SESSION_MAX_QUEUED_REQUEST_BYTES: usize = 4 * MAX_REQUEST_BYTES;

/// Largest Markdown file `workspace_markdown` reads, for the analysed file and for every other
/// file a link's `#fragment` is checked in (docs/workspace-tools.md#workspace_markdown): a
/// larger one is refused (`LOCAL_EXECUTOR_UNSUPPORTED_CONTENT`). pulldown-cmark holds the
/// whole document's tree while it parses: measured in the component, 2 MiB of the densest
/// markup (`*a* ` or `a` lines, over and over) peaks at 280 MB of the call's 512 MiB, and
/// 4 MiB of it runs out of memory. Real documents are far below it (the longest changelogs
/// and generated references are a few hundred KiB), and it is twice what `edit` takes
/// (`MAX_EDIT_FILE_BYTES`).
pub const MARKDOWN_MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// `toolhost mcp`, stateless 2026-07-28 revision: how long an approval asked as an
/// input-required result stays answerable. The retry must come back within this many
/// seconds with the sealed request state, or the approval is refused as expired (the call
/// can simply be made again, and asks again).
pub const MCP_APPROVAL_ROUND_SECS: u64 = 600;

/// `toolhost mcp`, stateless 2026-07-28 revision: most answered approvals remembered (so
/// that no answer can be replayed) within [`MCP_APPROVAL_ROUND_SECS`]. This bounds the
/// server's memory (a few hundred KiB) whatever a client answers. One more answer forgets
/// the oldest-asked round and refuses from then on every round asked no later than it, so
/// none is accepted twice and no flood of answers locks a later approval out: only a
/// question asked before the last 4,096 answers must be asked again.
pub const MCP_MAX_REMEMBERED_APPROVALS: usize = 4096;

/// `toolhost mcp`, tasks extension: how long a task's call may run and then how long its
/// final state stays readable through `tasks/get`, each (the task's `ttlMs`). Longer than
/// the longest call a tool may make (bash and the process tools stop at 10 minutes).
pub const MCP_TASK_TTL_SECS: u64 = 3600;

/// `toolhost mcp`, tasks extension: most finished tasks whose final state is kept for
/// `tasks/get` (running tasks are never dropped: see [`MCP_MAX_RUNNING_TASKS`]). Past it the
/// task that finished first is dropped, and a `tasks/get` of it says so. Without a bound the
/// server grew with every task for an hour (394 bash tasks held 18 MB). A client polls its
/// task within seconds of its end; 128 is two full rounds of [`MCP_MAX_RUNNING_TASKS`].
pub const MCP_MAX_FINISHED_TASKS: usize = 128;

/// `toolhost mcp`, tasks extension: most bytes of the finished tasks' final states kept (the
/// JSON `tasks/get` answers with), over all of them; past it the tasks that finished first
/// are dropped, as past [`MCP_MAX_FINISHED_TASKS`]. The task that finished last is always
/// kept, whatever its size. A bash result is ~17 KB as JSON with its full 16 KiB of plain
/// output, ~100 KB when that output is control characters (each escaped in six bytes), and a
/// component's structured result may reach 2 MiB: 4 MiB keeps 128 of the common ones and
/// bounds the rest by their bytes.
pub const MCP_MAX_FINISHED_TASK_BYTES: usize = 4 * 1024 * 1024;

/// `toolhost mcp`, tasks extension: how many ids of dropped tasks (past
/// [`MCP_MAX_FINISHED_TASKS`], [`MCP_MAX_FINISHED_TASK_BYTES`] or [`MCP_TASK_TTL_SECS`]) are
/// remembered, so that a late `tasks/get` of one is told why its task is gone rather than
/// that it never existed. A few dozen KiB.
pub const MCP_MAX_DROPPED_TASK_IDS: usize = 1024;

/// `toolhost mcp`, tasks extension: the polling interval suggested to clients (`pollIntervalMs`).
pub const MCP_TASK_POLL_MS: u64 = 500;

/// `toolhost mcp`, tasks extension: most tasks not yet finished at once; a call past it runs
/// as an ordinary request (its client waits for the result), never refused.
pub const MCP_MAX_RUNNING_TASKS: usize = 64;

/// Largest git config file that toolhost judges with git's own parser (`git config --file F
/// --list`) when bash created it in a git dir: a larger one is not judged inert and is removed
/// after the call (failing closed). `git init` and `git clone` write a few hundred bytes.
pub const MAX_GIT_CONFIG_JUDGE_BYTES: u64 = 1024 * 1024;

/// Longest git may take to list a config file's keys for that judgement, in milliseconds;
/// past it the config is not judged inert.
pub const GIT_CONFIG_JUDGE_TIMEOUT_MS: u64 = 5_000;

/// `tool add oci://…`: the largest component (the `application/wasm` layer) downloaded, in
/// bytes; a larger declared size is refused before anything is downloaded.
pub const OCI_MAX_COMPONENT_BYTES: u64 = 128 * 1024 * 1024;

/// `tool add oci://…`: the largest manifest (the artifact's or its signature's), in bytes.
pub const OCI_MAX_MANIFEST_BYTES: u64 = 256 * 1024;

/// `tool add oci://…`: the largest config blob and the largest signature payload, in bytes.
pub const OCI_MAX_SMALL_BLOB_BYTES: u64 = 64 * 1024;

/// `tool add oci://…`: at most this many signature layers are looked at under one
/// `sha256-<hex>.sig` tag.
pub const OCI_MAX_SIGNATURES: usize = 16;

/// Connecting to a registry gives up after this many milliseconds.
pub const OCI_CONNECT_TIMEOUT_MS: u64 = 10_000;

/// A registry that sends nothing for this many milliseconds is given up on.
pub const OCI_READ_TIMEOUT_MS: u64 = 30_000;

/// A whole `tool add oci://…` download (or `tool publish` upload), every request of it, ends
/// within this many milliseconds.
pub const OCI_TRANSFER_TIMEOUT_MS: u64 = 300_000;
/// Session store on PostgreSQL: longest a connection attempt (at start, or a reconnect after
/// the server went away) may take before the store is reported unreachable, in seconds.
pub const STORE_CONNECT_TIMEOUT_SECS: u64 = 5;

/// Session store: a pending change (recorded before its write, docs/sessions.md) of a
/// process this toolhost cannot check — on another machine, in another PID namespace, or
/// on a system without `/proc` — is taken as left behind by a process that died once it is
/// this old, in milliseconds, and reconciled by its hashes. A component call writes within
/// the 120 s a component may run and is recorded as soon as it returns, so a live process's
/// pending change is never this old. A process on this machine is checked directly.
pub const STORE_PENDING_ABANDONED_MS: u64 = 600_000;

/// Session store on SQLite: the write-ahead log is checkpointed into the database when it
/// holds this many pages (4 KiB each), and cut back to that size after each checkpoint.
/// SQLite's own default, 1,000 pages, leaves a 4 MB log beside every store; 256 keeps it
/// near 512 KB at the cost of a checkpoint every few dozen calls.
pub const STORE_WAL_CHECKPOINT_PAGES: u32 = 128;

/// Session store: the smallest, average and largest content-defined chunk (FastCDC) a file
/// version is cut into, in bytes. A one-line edit stores about one chunk plus the version's
/// list of chunk keys (16 bytes per chunk): smaller chunks store less of the file again but
/// lengthen that list.
pub const STORE_CHUNK_MIN_BYTES: u32 = 512;
/// See [`STORE_CHUNK_MIN_BYTES`].
pub const STORE_CHUNK_AVG_BYTES: u32 = 2048;
/// See [`STORE_CHUNK_MIN_BYTES`].
pub const STORE_CHUNK_MAX_BYTES: u32 = 8 * 1024;
