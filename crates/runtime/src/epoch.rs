//! The epoch that bounds a running component: advanced every [`EPOCH_TICK`] while a store
//! runs, so the store's epoch callback notices a cancellation or a passed deadline.

use std::sync::Arc;
use std::time::Duration;

use wasmtime::Engine;

/// How often the epoch advances: the granularity at which a running component notices a
/// cancellation or a passed deadline.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Advances the engine's epoch every [`EPOCH_TICK`] while at least one store is running,
/// and sleeps while none is: an idle server (MCP, session) costs no wake-ups.
pub(crate) struct EpochTicker {
    running: std::sync::Mutex<usize>,
    wake: std::sync::Condvar,
}

/// Held by every running store's data: while one exists, the epoch advances.
pub(crate) struct Ticking(Arc<EpochTicker>);

impl Drop for Ticking {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|e| e.into_inner());
        *running = running.saturating_sub(1);
    }
}

impl EpochTicker {
    /// Start the ticker thread for `engine`; it ends when the engine is dropped.
    pub(crate) fn start(engine: &Engine) -> Arc<Self> {
        let ticker = Arc::new(EpochTicker {
            running: std::sync::Mutex::new(0),
            wake: std::sync::Condvar::new(),
        });
        let weak = engine.weak();
        let this = ticker.clone();
        std::thread::Builder::new()
            .name("toolhost-epoch".into())
            .spawn(move || {
                loop {
                    {
                        let mut running = this.running.lock().unwrap_or_else(|e| e.into_inner());
                        while *running == 0 {
                            // Wake now and then only to notice that the engine is gone.
                            running = this
                                .wake
                                .wait_timeout(running, Duration::from_secs(1))
                                .unwrap_or_else(|e| e.into_inner())
                                .0;
                            if weak.upgrade().is_none() {
                                return;
                            }
                        }
                    }
                    let Some(engine) = weak.upgrade() else { return };
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(EPOCH_TICK);
                }
            })
            .expect("spawning the epoch thread");
        ticker
    }

    /// A store starts running: keep the epoch advancing until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>) -> Ticking {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.wake.notify_all();
        Ticking(self.clone())
    }

    /// Stores running now.
    #[cfg(test)]
    fn running(&self) -> usize {
        *self.running.lock().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_ticks_only_while_a_store_runs() {
        let engine = Engine::default();
        let ticker = EpochTicker::start(&engine);
        assert_eq!(ticker.running(), 0);
        let a = ticker.enter();
        let b = ticker.enter();
        assert_eq!(ticker.running(), 2);
        drop(a);
        assert_eq!(ticker.running(), 1);
        drop(b);
        assert_eq!(ticker.running(), 0);
    }
}
