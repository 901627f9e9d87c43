//! The memory bound of one call's `Store`: wasmtime's [`StoreLimits`] (the cap per memory,
//! growth failures trap), plus a count of the linear memory the instance holds, whose peak
//! the call reports as its usage.

use wasmtime::{ResourceLimiter, StoreLimits};

/// [`StoreLimits`] that also remember the most linear memory held at once.
pub struct MemoryLimiter {
    inner: StoreLimits,
    held: usize,
    peak: usize,
}

impl MemoryLimiter {
    /// Limits that delegate every decision to `inner`.
    pub fn new(inner: StoreLimits) -> Self {
        MemoryLimiter { inner, held: 0, peak: 0 }
    }

    /// The most bytes of linear memory the store's memories held at once.
    pub fn peak_memory(&self) -> usize {
        self.peak
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.inner.memory_growing(current, desired, maximum)?;
        if allowed {
            self.held = (self.held + desired).saturating_sub(current);
            self.peak = self.peak.max(self.held);
        }
        Ok(allowed)
    }

    fn memory_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.inner.memory_grow_failed(error)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.inner.table_growing(current, desired, maximum)
    }

    fn table_grow_failed(&mut self, error: wasmtime::Error) -> wasmtime::Result<()> {
        self.inner.table_grow_failed(error)
    }

    fn instances(&self) -> usize {
        self.inner.instances()
    }

    fn tables(&self) -> usize {
        self.inner.tables()
    }

    fn memories(&self) -> usize {
        self.inner.memories()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::StoreLimitsBuilder;

    #[test]
    fn the_peak_is_the_most_held_at_once_and_refusals_do_not_count() {
        let mut l = MemoryLimiter::new(StoreLimitsBuilder::new().memory_size(100).build());
        assert!(l.memory_growing(0, 40, None).unwrap());
        assert!(l.memory_growing(0, 30, None).unwrap());
        assert!(l.memory_growing(40, 60, None).unwrap());
        assert_eq!(l.peak_memory(), 90);
        assert!(!l.memory_growing(60, 200, None).unwrap());
        assert_eq!(l.peak_memory(), 90);
    }
}
