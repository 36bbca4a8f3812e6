//! The connection's transport with one extra power: a request can ask for the connection to be
//! reset (a TCP RST, `--fault reset=…`) instead of closed. The handler sets the flag and fails;
//! hyper drops the connection, and dropping this sets a zero linger first, so the kernel answers
//! the close with RST.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

pub struct FaultIo {
    inner: TcpStream,
    reset: Arc<AtomicBool>,
}

impl FaultIo {
    pub fn new(inner: TcpStream) -> FaultIo {
        FaultIo {
            inner,
            reset: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Set it to reset the connection when it is dropped.
    pub fn reset_flag(&self) -> Arc<AtomicBool> {
        self.reset.clone()
    }

    fn resetting(&self) -> bool {
        self.reset.load(Ordering::Relaxed)
    }
}

impl Drop for FaultIo {
    fn drop(&mut self) {
        if self.resetting() {
            // SO_LINGER 0: close() discards unsent data and sends RST (no blocking: nothing waits).
            let _ = self.inner.set_zero_linger();
        }
    }
}

fn reset_error() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionReset, "reset by --fault")
}

impl AsyncRead for FaultIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for FaultIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.resetting() {
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.resetting() {
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.resetting() {
            // No FIN: the drop sends RST.
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.resetting() {
            return Poll::Ready(Err(reset_error()));
        }
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
