//! The results table: one row per check, with what was measured, the
//! criterion, and whether it holds.

use std::fmt::Write as _;

/// One check of the soak.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) check: String,
    pub(crate) measured: String,
    pub(crate) criterion: String,
    /// `None`: a figure that is reported, not judged.
    pub(crate) holds: Option<bool>,
}

impl Row {
    /// A phase that could not run to the end.
    pub(crate) fn failed(check: &str, why: &str) -> Self {
        Self {
            check: check.to_string(),
            measured: format!("failed: {why}"),
            criterion: "runs to the end".into(),
            holds: Some(false),
        }
    }
}

/// The rows as one Markdown table under `header`.
pub(crate) fn render(rows: &[Row], header: &[String]) -> String {
    let mut out = String::new();
    for line in header {
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    out.push_str("| check | measured | criterion | holds |\n|---|---|---|---|\n");
    for row in rows {
        let holds = match row.holds {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "—",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {holds} |",
            cell(&row.check),
            cell(&row.measured),
            cell(&row.criterion)
        );
    }
    out
}

/// Text that cannot break a table row.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// KiB as MiB with one decimal.
pub(crate) fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// A difference of two KiB figures as signed MiB.
pub(crate) fn delta_mib(from_kib: u64, to_kib: u64) -> String {
    let delta = (to_kib as f64 - from_kib as f64) / 1024.0;
    format!("{delta:+.1} MiB")
}

/// An integer with thousands separators.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds with a precision that suits their size.
pub(crate) fn ms(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.2} ms")
    } else {
        format!("{value:.0} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(1_000_000), "1,000,000");
        assert_eq!(mib(1536), "1.5 MiB");
        assert_eq!(delta_mib(2048, 1024), "-1.0 MiB");
        assert_eq!(delta_mib(1024, 1536), "+0.5 MiB");
        assert_eq!(delta_mib(1024, 1024), "+0.0 MiB");
        assert_eq!(ms(0.123), "0.12 ms");
        assert_eq!(ms(123.4), "123 ms");
    }

    #[test]
    fn renders_a_table() {
        let rows = [
            Row {
                check: "a|b".into(),
                measured: "1".into(),
                criterion: "≤ 2".into(),
                holds: Some(true),
            },
            Row::failed("c", "boom"),
        ];
        let text = render(&rows, &["# t".into()]);
        assert!(text.contains("| a\\|b | 1 | ≤ 2 | yes |"));
        assert!(text.contains("| c | failed: boom | runs to the end | **no** |"));
    }
}
