package org.ysuite.zmq;

/**
 * What went wrong, as the {@code errno} a libzmq user would check after a failed call.
 */
public enum ZmqError {
    /** The operation would block (libzmq {@code EAGAIN}): DONTWAIT, or a send/receive timeout. */
    EAGAIN,
    /** The operation is not allowed in the socket's current state ({@code EFSM}), e.g. REQ sending twice. */
    EFSM,
    /** A ROUTER with {@code routerMandatory} was asked to send to an unknown routing id ({@code EHOSTUNREACH}). */
    EHOSTUNREACH,
    /** The socket or its context is closed ({@code ETERM}/{@code ENOTSOCK}). */
    ETERM,
    /** An argument is invalid ({@code EINVAL}): a malformed endpoint, an option value out of range. */
    EINVAL,
    /** The socket type does not support the operation ({@code ENOTSUP}), e.g. receive on PUSH. */
    ENOTSUP,
    /** The endpoint's transport is unknown or unavailable here ({@code EPROTONOSUPPORT}). */
    EPROTONOSUPPORT,
    /** The address is already bound ({@code EADDRINUSE}). */
    EADDRINUSE,
    /** The endpoint is not bound or connected on this socket ({@code ENOENT}). */
    ENOENT,
    /** The thread was interrupted while it waited ({@code EINTR}); its interrupt status is set again. */
    EINTR
}
