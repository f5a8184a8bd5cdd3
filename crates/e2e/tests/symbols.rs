//! The driver exports exactly the three loader-interface functions.

use std::collections::BTreeSet;
use std::process::Command;

use tessera_e2e::*;

#[test]
fn exports_only_the_icd_interface() {
    let lib = require_icd();
    let output = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `nm` (install binutils): {e}"));
    assert!(
        output.status.success(),
        "nm failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Lines look like "000000000001a2b0 T vk_icdGetInstanceProcAddr".
    // T = text, W = weak, i = indirect (ifunc): all exported functions.
    let functions: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace().rev();
            let name = parts.next()?;
            let kind = parts.next()?;
            matches!(kind, "T" | "W" | "i").then_some(name)
        })
        .collect();
    let expected: BTreeSet<&str> = [
        "vk_icdGetInstanceProcAddr",
        "vk_icdGetPhysicalDeviceProcAddr",
        "vk_icdNegotiateLoaderICDInterfaceVersion",
    ]
    .into_iter()
    .collect();
    assert_eq!(
        functions,
        expected,
        "exported functions of {}",
        lib.display()
    );
}
