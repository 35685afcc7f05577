//! `DMLS_SIMD`: a level's name, in any case, lowers the kernels' level without a word; any other
//! value is said once on stderr (a typo must not pass for a lowered level) and changes nothing.
//! Each value runs in a child process, since the level is read once per process.

use directml_subset::{DataType, Device, DeviceOptions, Input, OperatorDesc, TensorDesc};

/// The child: runs NONZERO_COORDINATES twice and DIAGONAL_MATRIX1 once, each time reading the
/// level, and checks the answers. Run alone by `dmls_simd_values`, with `DMLS_SIMD` set.
#[test]
fn child_runs_operators() {
    let device = Device::new(&DeviceOptions::default()).expect("device");
    let nonzero = device
        .create_operator(&OperatorDesc::NonZeroCoordinates {
            input: TensorDesc::new(DataType::Float32, &[2, 4]),
            output_count: TensorDesc::new(DataType::UInt32, &[1]),
            output_coordinates: TensorDesc::new(DataType::UInt32, &[8, 2]),
        })
        .expect("NONZERO_COORDINATES");
    let input: [f32; 8] = [1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2];
    for _ in 0..2 {
        let mut count = [0u32; 1];
        let mut coordinates = [0u32; 16];
        nonzero
            .execute(
                &[Input::Bytes(bytemuck::cast_slice(&input))],
                &mut [
                    bytemuck::cast_slice_mut(&mut count),
                    bytemuck::cast_slice_mut(&mut coordinates),
                ],
            )
            .expect("execute NONZERO_COORDINATES");
        assert_eq!(count[0], 4);
        assert_eq!(&coordinates[..8], &[0, 0, 0, 3, 1, 1, 1, 3]);
    }
    let matrix = TensorDesc::new(DataType::Float32, &[2, 2]);
    let mut one = [0u8; 8]; // a DML_SCALAR_UNION holding FLOAT32 1.0, in the CPU's byte order
    one[..4].copy_from_slice(&1f32.to_ne_bytes());
    let identity = device
        .create_operator(&OperatorDesc::DiagonalMatrix1 {
            input: None,
            output: matrix,
            value_data_type: DataType::Float32.raw(),
            value: one,
            diagonal_fill_begin: 0,
            diagonal_fill_end: 1,
        })
        .expect("DIAGONAL_MATRIX1");
    let mut y = [7f32; 4];
    identity
        .execute(&[Input::None], &mut [bytemuck::cast_slice_mut(&mut y)])
        .expect("execute DIAGONAL_MATRIX1");
    assert_eq!(y, [1.0, 0.0, 0.0, 1.0]);
}

/// Runs `child_runs_operators` with `DMLS_SIMD=value` and returns its stderr.
fn child_stderr(value: &str) -> String {
    let exe = std::env::current_exe().expect("test executable");
    let out = std::process::Command::new(exe)
        .args(["--exact", "child_runs_operators", "--nocapture"])
        .env("DMLS_SIMD", value)
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "DMLS_SIMD={value:?}: the child failed or ran no test:\n{stdout}\n{stderr}"
    );
    stderr
}

#[test]
fn dmls_simd_values() {
    if std::env::var_os("DMLS_SIMD").is_some() {
        return; // a child, or a run at a forced level: the parent's job is done elsewhere
    }
    for value in ["avx2", "AVX2", "Sse2", " portable ", "AVX512", ""] {
        let stderr = child_stderr(value);
        assert!(
            !stderr.contains("DMLS_SIMD"),
            "DMLS_SIMD={value:?} is a level (or unset), yet:\n{stderr}"
        );
    }
    for value in ["avx3", "avx-512", "sse4", "native"] {
        let stderr = child_stderr(value);
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|line| line.contains("DMLS_SIMD"))
            .collect();
        assert_eq!(
            warnings.len(),
            1,
            "DMLS_SIMD={value:?} must be said once on stderr:\n{stderr}"
        );
        assert!(
            warnings[0].contains(&format!("DMLS_SIMD={value:?}"))
                && warnings[0].contains("portable, sse2, avx2 or avx512"),
            "the warning names the value and the accepted ones: {}",
            warnings[0]
        );
    }
}
