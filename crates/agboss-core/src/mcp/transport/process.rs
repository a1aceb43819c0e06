//! [`ServerProcess`]: a stdio server's process group, which never outlives its owner.

use process_wrap::tokio::ChildWrapper;

/// A stdio server's child process, leader of its own process group.
///
/// Dropping it kills the whole group, not only the child: `npx` and shell scripts start the real
/// server as a grandchild, which a plain kill-on-drop of the child would leave running.
pub(crate) struct ServerProcess {
    child: Box<dyn ChildWrapper>,
    /// The group was killed and the child reaped: nothing is left to kill.
    stopped: bool,
}

impl ServerProcess {
    pub(crate) fn new(child: Box<dyn ChildWrapper>) -> ServerProcess {
        ServerProcess {
            child,
            stopped: false,
        }
    }

    /// The child's process id, while it has not been reaped.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Whether the child has exited (without waiting).
    pub(crate) fn has_exited(&mut self) -> bool {
        self.exited_on_its_own().is_some()
    }

    /// How the child ended, if it has exited on its own (without waiting).
    pub(crate) fn exited_on_its_own(&mut self) -> Option<String> {
        self.child
            .try_wait()
            .ok()
            .flatten()
            .map(|exit| exit.to_string())
    }

    /// How the child ended if it exited on its own; otherwise the group is killed and the child
    /// reaped first. No timer is needed and no process is left.
    pub(crate) async fn exit_status(&mut self) -> Option<String> {
        match self.exited_on_its_own() {
            Some(status) => Some(status),
            None => self.stop().await,
        }
    }

    /// Kills the whole group and reaps the child; its exit status.
    pub(crate) async fn stop(&mut self) -> Option<String> {
        let _ = self.child.start_kill();
        let status = self.child.wait().await.ok().map(|exit| exit.to_string());
        self.stopped = true;
        status
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if !self.stopped {
            // SIGKILL to the group; a group that is already gone is not an error here.
            let _ = self.child.start_kill();
        }
    }
}
