//! `toomany completions SHELL` and `toomany man`: generated from the parser's own definitions,
//! checked by the shells and by `man` themselves.

mod common;
use common::*;

fn stdout_of(args: &[&str]) -> String {
    let out = toomany()
        .env("SOURCE_DATE_EPOCH", "1764547200")
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// A tool that is on PATH and answers `--version` (or `-c exit` for shells).
fn have(cmd: &str, probe: &[&str]) -> bool {
    std::process::Command::new(cmd)
        .args(probe)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn bash_completion_is_valid_bash_and_completes_commands_and_flags() {
    let script = stdout_of(&["completions", "bash"]);
    for word in [
        "analyze",
        "compare",
        "--fail-on",
        "--against",
        "--emit-config",
    ] {
        assert!(script.contains(word), "bash completion lacks {word}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "toomany.bash", script.as_bytes());
    let out = std::process::Command::new("bash")
        .args(["-n", &file])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Loaded for real: completing `toomany comp` offers compare and completions, and
    // `toomany analyze --fail` offers --fail-on.
    let probe = format!(
        r#"source {file}
COMP_WORDS=(toomany comp); COMP_CWORD=1; COMP_LINE="toomany comp"; COMP_POINT=${{#COMP_LINE}}
_toomany toomany comp toomany; echo "1: ${{COMPREPLY[*]}}"
COMP_WORDS=(toomany analyze --fail); COMP_CWORD=2; COMP_LINE="toomany analyze --fail"; COMP_POINT=${{#COMP_LINE}}
_toomany toomany --fail analyze; echo "2: ${{COMPREPLY[*]}}"
"#
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &probe])
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1: ") && text.contains("compare") && text.contains("completions"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("2: ") && l.contains("--fail-on")),
        "{text}"
    );
}

#[test]
fn every_shell_gets_a_script_and_the_ones_installed_accept_it() {
    let tmp = tempfile::tempdir().unwrap();
    for (shell, check) in [
        ("zsh", Some(("zsh", "-n"))),
        ("fish", Some(("fish", "--no-execute"))),
        ("powershell", None),
        ("elvish", None),
    ] {
        let s = stdout_of(&["completions", shell]);
        assert!(s.contains("toomany") && s.contains("compare"), "{shell}");
        if let Some((bin, flag)) = check {
            if have(bin, &["-c", "exit 0"]) {
                let file = write(tmp.path(), &format!("toomany.{shell}"), s.as_bytes());
                let out = std::process::Command::new(bin)
                    .args([flag, &file])
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{bin} {flag}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            } else {
                common::skipped(
                    &format!("completions {shell}: {bin} is not installed; only the script's content was checked"),
                    &["TOOMANY_REQUIRE_SHELLS"],
                );
            }
        }
    }
    // fish, when installed, completes from the script for real.
    if have("fish", &["-c", "exit 0"]) {
        let file = tmp.path().join("toomany.fish");
        let probe = format!(
            "source {}; complete -C 'toomany comp'; complete -C 'toomany analyze --fail'",
            file.display()
        );
        let out = std::process::Command::new("fish")
            .args(["--no-config", "-c", &probe])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines().any(|l| l.starts_with("compare\t"))
                && text.lines().any(|l| l.starts_with("completions\t"))
                && text.lines().any(|l| l.starts_with("--fail-on\t")),
            "fish: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = toomany().args(["completions", "tcsh"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("bash") && err.contains("powershell"), "{err}");
}

/// `man -l` renders a page; None when man-db is not installed (and not required).
fn man_render(page: &str) -> Option<String> {
    if !have("man", &["--version"]) {
        common::skipped(
            "the `man -l` check: no man on PATH (apt-get install -y man-db; .ci/run installs it)",
            &["TOOMANY_REQUIRE_MAN"],
        );
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "page.1", page.as_bytes());
    let out = std::process::Command::new("man")
        .args(["-l", &file])
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("man runs");
    assert!(
        out.status.success(),
        "man -l: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("warning"), "man -l warned: {stderr}");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_man_pages_render_with_man() {
    let page = stdout_of(&["man"]);
    // SOURCE_DATE_EPOCH (reproducible builds) dates the page; the manual's name stays in place.
    assert!(
        page.contains(".TH toomany 1 2025-12-01 \"toomany "),
        "{}",
        &page[..300.min(page.len())]
    );
    if let Some(text) = man_render(&page) {
        assert!(text.contains("Diagnose HTTP 429"), "{text}");
        for cmd in ["analyze", "compare", "completions", "man"] {
            assert!(text.contains(&format!("toomany-{cmd}(1)")), "{cmd}: {text}");
        }
    }
    let sub = stdout_of(&["man", "analyze"]);
    assert!(
        sub.contains(".TH toomany-analyze 1"),
        "{}",
        &sub[..300.min(sub.len())]
    );
    if let Some(text) = man_render(&sub) {
        assert!(text.contains("--fail-on"), "{text}");
        assert!(text.contains("Exit status"), "{text}");
    }
    let out = toomany().args(["man", "nope"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("man nope: no such command") && err.contains("analyze"),
        "{err}"
    );
}

#[test]
fn man_dir_writes_every_page_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("share/man/man1");
    toomany()
        .env("SOURCE_DATE_EPOCH", "1764547200")
        .args(["man", "--dir"])
        .arg(&dir)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for want in [
        "toomany.1",
        "toomany-analyze.1",
        "toomany-compare.1",
        "toomany-man.1",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n.contains("help") || n.contains("tmp")),
        "{names:?}"
    );
    // The same page as `toomany man analyze`.
    let analyze = std::fs::read_to_string(dir.join("toomany-analyze.1")).unwrap();
    assert_eq!(analyze, stdout_of(&["man", "analyze"]));
    // Again: refused (nothing replaced) unless --force.
    let out = toomany().args(["man", "--dir"]).arg(&dir).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("exists; pass --force"), "{err}");
    toomany()
        .args(["man", "--force", "--dir"])
        .arg(&dir)
        .assert()
        .success();
    // A file where the directory should be: the path as given, and what to do.
    let file = write(tmp.path(), "plain", b"x");
    let out = toomany().args(["man", "--dir", &file]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains(&format!("--dir {file}: exists and is not a directory")),
        "{err}"
    );
}
