//! Why the JIT could not compile a program ([`JitError`]). Any of them leaves the program on the
//! interpreter (the runtime logs the reason at `info`); none is a failure of the pipeline,
//! except under `TESSERA_SHADER_BACKEND=jit`.

/// A compile that did not produce code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JitError {
    /// The host is not a target Cranelift compiles for.
    #[error("host not supported: {0}")]
    Host(String),
    /// Cranelift refused a setting, the function or its placement in memory.
    #[error("cranelift: {0}")]
    Cranelift(String),
    /// A register got a value of another class than the register analysis gave it (a JIT bug,
    /// caught before any code runs).
    #[error("%{reg}: {what}")]
    Class { reg: u32, what: String },
    /// An operand the analysis proved uniform is not a scalar where `what` needs one.
    #[error("{0}: an operand is not uniform")]
    NotUniform(&'static str),
    /// A shape that the lowering of `0` does not take reached it.
    #[error("{0}")]
    Unexpected(&'static str),
    /// The function's stack frame is larger than [`crate::MAX_FRAME_BYTES`] (a huge program
    /// spilling most of its values): it would overflow the stack of the thread that runs it.
    #[error("a stack frame of {bytes} bytes, over the {limit} the JIT allows")]
    FrameTooLarge { bytes: u64, limit: u64 },
    /// An op that goes to the interpreter came up in a block the stepper runs for some lanes
    /// (the interpreter would run it for every lane): the function is built again without the
    /// stepper.
    #[error("an interpreter op in a stepped block")]
    SteppedCallout,
    /// Compiling panicked (caught; a JIT bug).
    #[error("the JIT panicked")]
    Panicked,
}

/// The result of a code generator step.
pub(crate) type JitResult<T> = Result<T, JitError>;
