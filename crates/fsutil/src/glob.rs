//! Glob patterns over names: `*` any run of characters, `?` any one, everything else itself.
//! The command line selects parameters with them (`--freeze 'pst.*'`, `tune spsa --only`).

/// Whether `text` matches the glob `pattern` (`*` any run of characters, `?` any one).
///
/// ```
/// assert!(fsutil::glob_match("pst.*.e4", "pst.mg.e4"));
/// assert!(fsutil::glob_match("mg.?awn", "mg.pawn"));
/// assert!(!fsutil::glob_match("pst.*", "material.pawn"));
/// ```
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}
