//! Devices and operators: the safe Rust interface that the C API wraps.

use std::sync::Arc;

use crate::dml::{DML_FEATURE_LEVEL, DML_TENSOR_DATA_TYPE};
use crate::error::{invalid, Error, Result};
use crate::level;
use crate::op::plan::Plan;
use crate::op::{Config, Input, OperatorDesc};
use crate::pool::Threads;
pub use crate::pool::DMLS_MAX_THREAD_COUNT;
use crate::tensor::DataType;

/// `dmls_device_desc.flags` bit: allow the extensions beyond DirectML. Without it a device is
/// strictly DirectML and rejects each of these with E_INVALIDARG and a message naming the flag.
/// With it, NONZERO_COORDINATES accepts:
/// - FLOAT64, INT64 and UINT64 inputs (FLOAT64's -0.0 is zero and NaN is not);
/// - UINT64 or INT64 count and coordinates tensors (both the same type). Then the 2^32 - 1
///   element limit is lifted for all three tensors, and because one UINT size cannot hold more
///   than 2^32 - 1 rows, the coordinates' rows may spread over every dimension before N (sizes
///   `{A, B, ..., N}` with A x B x ... = the input's element count, evenly spaced: each leading
///   stride equals the row stride times the rows below it).
pub const DMLS_DEVICE_FLAG_EXTENSIONS: u32 = 0x1;

/// How a device is created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceOptions {
    /// The DirectML feature level to emulate; `DML_FEATURE_LEVEL(0)` means the newest (6_4).
    pub feature_level: DML_FEATURE_LEVEL,
    /// Worker threads: 0 shares the library's process-wide pool (one thread per logical core,
    /// or `RAYON_NUM_THREADS`); 1 runs everything on the calling thread; more creates a pool of
    /// that many for this device. Pools survive `fork()`: a forked child starts its own threads
    /// on its first parallel execution.
    pub thread_count: u32,
    /// `DMLS_DEVICE_FLAG_*` bits; 0 is strict DirectML behaviour.
    pub flags: u32,
}

struct DeviceInner {
    config: Config,
    threads: Threads,
}

/// A device: a feature level to validate against and threads to run on. Cheap to clone (the
/// clones share one device); operators keep their device alive.
///
/// ```
/// use directml_subset::{Device, DeviceOptions, OperatorDesc, TensorDesc, DataType, Input};
///
/// let device = Device::new(&DeviceOptions::default())?;
/// let op = device.create_operator(&OperatorDesc::NonZeroCoordinates {
///     input: TensorDesc::new(DataType::Float32, &[2, 4]),
///     output_count: TensorDesc::new(DataType::UInt32, &[1]),
///     output_coordinates: TensorDesc::new(DataType::UInt32, &[8, 2]),
/// })?;
/// let input: [f32; 8] = [1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2];
/// let mut count = [0u32; 1];
/// let mut coords = [0u32; 16];
/// op.execute(
///     &[Input::Bytes(bytemuck::cast_slice(&input))],
///     &mut [bytemuck::cast_slice_mut(&mut count), bytemuck::cast_slice_mut(&mut coords)],
/// )?;
/// assert_eq!(count[0], 4);
/// assert_eq!(&coords[..8], &[0, 0, 0, 3, 1, 1, 1, 3]);
/// # Ok::<(), directml_subset::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    inner: Arc<DeviceInner>,
}

impl core::fmt::Debug for Device {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Device")
            .field("feature_level", &level::name(self.inner.config.level))
            .field("extensions", &self.inner.config.extensions)
            .field("threads", &self.threads())
            .finish()
    }
}

impl Device {
    /// Creates a device. Unknown feature levels and flags are `InvalidArg`; a well-formed level
    /// above 6_4 is `Unsupported`; `OutOfMemory` when its own pool's threads cannot be started.
    /// Messages name the [`DeviceOptions`] field at fault (`"thread_count is 2000, at most
    /// 1024"`).
    pub fn new(options: &DeviceOptions) -> Result<Device> {
        let level = level::resolve(options.feature_level)?;
        if options.flags & !DMLS_DEVICE_FLAG_EXTENSIONS != 0 {
            return invalid!(
                "flags is {:#x}; the only flag is DMLS_DEVICE_FLAG_EXTENSIONS (0x1)",
                options.flags
            );
        }
        if options.thread_count > DMLS_MAX_THREAD_COUNT {
            return invalid!(
                "thread_count is {}, at most {DMLS_MAX_THREAD_COUNT}",
                options.thread_count
            );
        }
        let threads = Threads::new(options.thread_count)?;
        Ok(Device {
            inner: Arc::new(DeviceInner {
                config: Config {
                    level,
                    extensions: options.flags & DMLS_DEVICE_FLAG_EXTENSIONS != 0,
                },
                threads,
            }),
        })
    }

    /// The feature level this device emulates.
    pub fn feature_level(&self) -> DML_FEATURE_LEVEL {
        self.inner.config.level
    }

    /// True when the device was created with `DMLS_DEVICE_FLAG_EXTENSIONS`.
    pub fn extensions(&self) -> bool {
        self.inner.config.extensions
    }

    /// The number of threads an execution may use.
    pub fn threads(&self) -> usize {
        self.inner.threads.count()
    }

    /// Copies `src` into `dst` (zeroes `dst` without `src`) on this device's threads, one part
    /// per thread, through the same pool and team as the operators' parallel paths: a
    /// `memcpy` that pays the operators' trips, for the benchmarks. Not part of the supported
    /// API.
    #[doc(hidden)]
    pub fn parallel_copy(&self, dst: &mut [u8], src: Option<&[u8]>) -> Result<()> {
        let n = src.map_or(dst.len(), |s| s.len().min(dst.len()));
        let workers = self.inner.threads.workers();
        let part = n.div_ceil(workers.threads).next_multiple_of(64).max(64);
        workers.for_each_chunk(&mut dst[..n], part, &|i, d| match src {
            Some(src) => d.copy_from_slice(&src[i * part..i * part + d.len()]),
            None => d.fill(0),
        })
    }

    /// `DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT`: true for the 11 types of 8 to 64 bits.
    pub fn is_data_type_supported(&self, data_type: DML_TENSOR_DATA_TYPE) -> bool {
        DataType::from_raw(data_type).is_some()
    }

    /// `DML_FEATURE_FEATURE_LEVELS`: the highest requested level not above the device's. A
    /// well-formed level above 6_4 (`0xMm00`, as a program built with a newer DirectML.h may
    /// list) is above every device's, like any level above this one's. No level requested, or
    /// one that is neither a DML_FEATURE_LEVEL nor such a newer level, is `InvalidArg`; all of
    /// them above the device's is `Unsupported`. (Messages name the fields of DirectML's query
    /// struct, `RequestedFeatureLevels`.)
    pub fn max_supported_feature_level(
        &self,
        requested: &[DML_FEATURE_LEVEL],
    ) -> Result<DML_FEATURE_LEVEL> {
        if requested.is_empty() {
            return invalid!("RequestedFeatureLevelCount is 0, must be at least 1");
        }
        if let Some((i, bad)) = requested
            .iter()
            .enumerate()
            .find(|(_, l)| !level::is_known(**l) && !level::is_newer(**l))
        {
            return invalid!(
                "RequestedFeatureLevels[{i}] is {:#x}, not a DML_FEATURE_LEVEL value",
                bad.0
            );
        }
        requested
            .iter()
            .copied()
            .filter(|&l| l <= self.inner.config.level)
            .max()
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "none of the requested levels is at or below this device's \
                     DML_FEATURE_LEVEL_{}",
                    level::name(self.inner.config.level)
                ))
            })
    }

    /// Validates `desc` against this device's feature level and copies what the operator needs.
    pub fn create_operator(&self, desc: &OperatorDesc) -> Result<Operator> {
        let plan = Plan::new(&self.inner.config, desc)?;
        Ok(Operator {
            device: Arc::clone(&self.inner),
            plan,
        })
    }
}

/// A validated, immutable operator. `execute` may run from many threads at once.
pub struct Operator {
    device: Arc<DeviceInner>,
    plan: Plan,
}

impl core::fmt::Debug for Operator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Operator")
            .field("type", &self.plan.name())
            .finish()
    }
}

impl Operator {
    /// DirectML's name of the operator type, e.g. `NONZERO_COORDINATES`.
    pub fn name(&self) -> &'static str {
        self.plan.name()
    }

    /// The bytes each input slot must be bound to (`None` for an optional input the desc left
    /// out), in DirectML's order.
    pub fn input_sizes(&self) -> Vec<Option<u64>> {
        self.plan
            .inputs()
            .iter()
            .map(|s| s.map(|l| l.total_bytes))
            .collect()
    }

    /// The bytes each output slot must be bound to, in DirectML's order.
    pub fn output_sizes(&self) -> Vec<u64> {
        self.plan.outputs().iter().map(|l| l.total_bytes).collect()
    }

    /// Runs the operator. `inputs` and `outputs` hold one entry per slot, in DirectML's order
    /// (see the C API's binding table). Each slice holds at least the tensor's
    /// `TotalTensorSizeInBytes` and starts aligned to the element size (and to the desc's
    /// `GuaranteedBaseOffsetAlignment`, when it gives one). Only output elements are written,
    /// and nothing is written when an error is returned: `InvalidArg` for bindings that break
    /// these rules, `OutOfMemory` when the execution's scratch (a bitmask chunk of a large
    /// NONZERO_COORDINATES input) or the device's threads on their first use cannot be had.
    pub fn execute(&self, inputs: &[Input<'_>], outputs: &mut [&mut [u8]]) -> Result<()> {
        self.plan.check_in_place(inputs, outputs)?;
        self.execute_bound(inputs, outputs)
    }

    /// [`Operator::execute`] for the C API, which has checked an in-place input against its own
    /// binding (the output's slice is only the output's total).
    pub(crate) fn execute_bound(
        &self,
        inputs: &[Input<'_>],
        outputs: &mut [&mut [u8]],
    ) -> Result<()> {
        self.plan
            .execute(inputs, outputs, self.device.threads.workers())
    }

    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }
}
