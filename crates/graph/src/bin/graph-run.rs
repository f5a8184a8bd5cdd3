//! `graph-run`: runs one data graph in-process, without Vulkan, for tests and debugging.
//!
//! ```text
//! cargo run --release -p tessera-graph --bin graph-run -- GRAPH.spv [--entry NAME]
//!     [--constant ID=FILE]… [--spec ID=VALUE]… [--print] [--reference] [--out DIR] INPUT.npy…
//! ```
//!
//! `GRAPH.spv` is a SPIR-V module with `SPV_ARM_graph` (as `vgf_dump --dump-spirv` writes);
//! `--entry` names its `OpGraphEntryPointARM` (default `main`, model-converter's is
//! `graph_partition_0`); each `--constant` gives the data of the `OpGraphConstantARM` with that
//! GraphConstantID (a `.npy` file's data, or a raw file of packed little-endian elements); each
//! `--spec` a specialization constant (a u32); inputs are `.npy` files in interface order.
//! Outputs are written as `DIR/output_N.npy` (default `.`); `--print` prints the graph IR. The
//! graph runs on the driver's executor (`tessera_graph::plan`: native kernels where it has them,
//! reference kernels elsewhere); `--reference` runs every node on the reference kernels.

use std::path::PathBuf;
use std::process::ExitCode;

use tessera_graph::plan::Plan;
use tessera_graph::{Inputs, Tensor, compile, npy, run};

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("graph-run: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn real_main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut module = None;
    let mut entry = "main".to_string();
    let mut inputs = Inputs::default();
    let mut files = Vec::new();
    let mut out = PathBuf::from(".");
    let mut print = false;
    let mut reference = false;
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--entry" => entry = value("a name")?,
            "--out" => out = PathBuf::from(value("a folder")?),
            "--print" => print = true,
            "--reference" => reference = true,
            "--constant" => {
                let v = value("ID=FILE")?;
                let (id, file) = v.split_once('=').ok_or("--constant takes ID=FILE")?;
                let id: u32 = id.parse().map_err(|_| format!("constant id {id:?}"))?;
                let bytes = read(file)?;
                let data = match npy::parse(&bytes) {
                    Ok((_, _, data)) => data.to_vec(),
                    Err(_) => bytes,
                };
                inputs.graph_constants.insert(id, data);
            }
            "--spec" => {
                let v = value("ID=VALUE")?;
                let (id, x) = v.split_once('=').ok_or("--spec takes ID=VALUE")?;
                let id: u32 = id.parse().map_err(|_| format!("spec id {id:?}"))?;
                let x: u32 = x.parse().map_err(|_| format!("spec value {x:?}"))?;
                inputs.specialization.insert(id, x.to_le_bytes().to_vec());
            }
            "-h" | "--help" => {
                println!(
                    "usage: graph-run GRAPH.spv [--entry NAME] [--constant ID=FILE]… [--spec ID=VALUE]… [--print] [--reference] [--out DIR] INPUT.npy…"
                );
                return Ok(());
            }
            _ if module.is_none() => module = Some(a),
            _ => files.push(a),
        }
    }
    let module = module.ok_or("no GRAPH.spv given (see --help)")?;
    let bytes = read(&module)?;
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{module}: {} bytes is not a whole number of words",
            bytes.len()
        ));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let graph = compile(&words, &entry, &inputs).map_err(|e| format!("{module}: {e}"))?;
    if print {
        print!("{}", graph.text());
    }
    if files.len() != graph.inputs.len() {
        return Err(format!(
            "the graph has {} inputs, {} files given",
            graph.inputs.len(),
            files.len()
        ));
    }
    let tensors = files
        .iter()
        .zip(&graph.inputs)
        .map(|(f, want)| npy::read(&read(f)?, &want.info).map_err(|e| format!("{f}: {e}")))
        .collect::<Result<Vec<_>, String>>()?;
    let results = if reference {
        run(&graph, &tensors).map_err(|e| e.to_string())?
    } else {
        // The driver's executor: native kernels where it has them.
        let plan = Plan::new(graph);
        let ins: Vec<Vec<u8>> = tensors.iter().map(Tensor::to_bytes).collect();
        let in_refs: Vec<&[u8]> = ins.iter().map(Vec::as_slice).collect();
        let infos: Vec<_> = plan
            .graph()
            .outputs
            .iter()
            .map(|o| o.info.clone())
            .collect();
        let mut outs: Vec<Vec<u8>> = infos
            .iter()
            .map(|i| vec![0u8; i.elements() * i.dtype.bytes()])
            .collect();
        let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
        plan.run(&in_refs, &mut out_refs)
            .map_err(|e| e.to_string())?;
        infos
            .iter()
            .zip(&outs)
            .map(|(i, b)| Tensor::from_bytes(i, b).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, String>>()?
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (i, t) in results.iter().enumerate() {
        let path = out.join(format!("output_{i}.npy"));
        std::fs::write(&path, npy::write(t)).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("graph-run: wrote {} ({})", path.display(), t.info());
    }
    Ok(())
}
