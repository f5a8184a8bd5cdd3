//! `vulkaninfo` (from vulkan-tools) runs cleanly against Tessera alone.

use std::process::{Command, Output};

use tessera_e2e::*;

fn vulkaninfo(args: &[&str]) -> Output {
    require_icd();
    let output = Command::new("vulkaninfo")
        .args(args)
        .envs(driver_env())
        // Headless and deterministic: no surface queries.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("VK_LOADER_DEBUG")
        .output();
    match output {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "`vulkaninfo` is not installed: install vulkan-tools \
             (`apt-get install vulkan-tools`) to run this test"
        ),
        Err(e) => panic!("cannot run vulkaninfo: {e}"),
    }
}

fn check(args: &[&str]) -> String {
    let output = vulkaninfo(args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "vulkaninfo {args:?} exited with {}\nstderr:\n{stderr}\nstdout tail:\n{}",
        output.status,
        stdout.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    assert!(
        stdout.contains("Tessera"),
        "no Tessera in vulkaninfo {args:?}"
    );
    assert!(
        stdout.contains("PHYSICAL_DEVICE_TYPE_CPU"),
        "no PHYSICAL_DEVICE_TYPE_CPU in vulkaninfo {args:?}"
    );
    assert!(
        !stdout.contains("llvmpipe"),
        "another driver was loaded: the manifest override did not apply"
    );
    let bad: Vec<&str> = stderr
        .lines()
        .filter(|line| {
            let lower = line.to_lowercase();
            lower.contains("tessera") && (lower.contains("warn") || lower.contains("error"))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "vulkaninfo {args:?} reported problems with Tessera:\n{}",
        bad.join("\n")
    );
    stdout
}

#[test]
fn vulkaninfo_full_output() {
    let stdout = check(&[]);
    assert!(
        stdout.contains("apiVersion"),
        "full report has device properties"
    );
    assert!(
        stdout.contains("VK_KHR_synchronization2"),
        "full report lists device extensions"
    );
    assert!(
        stdout.contains("VkQueueFamilyProperties"),
        "full report lists queue families"
    );
}

#[test]
fn vulkaninfo_summary() {
    let stdout = check(&["--summary"]);
    assert!(stdout.contains("deviceName"), "summary lists the device");
}
