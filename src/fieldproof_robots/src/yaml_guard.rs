//! A guard run on YAML text before it reaches `serde_yaml`: it refuses input that is too
//! large or nested too deep, in time linear in the input.
//!
//! libyaml (behind `serde_yaml`) takes time quadratic in the nesting depth of flow
//! collections: 200 KB of `[[[[…` takes about a minute to refuse. [`check`] measures the
//! nesting the way libyaml's scanner tokenizes (flow `[`/`{`, block collections by
//! indentation, indentless sequences), skipping quoted scalars, plain scalars, block
//! scalars, tags and comments exactly where libyaml does, so brackets inside text never count
//! and no bracket of the structure is missed. Where libyaml would stop with a syntax error,
//! the scan stops too (the parser reports it). It never panics.
//!
//! ```
//! use fieldproof_robots::yaml_guard;
//! assert!(yaml_guard::check("a: {b: [1, 2]}\n").is_ok());
//! let deep = "[".repeat(10_000);
//! assert!(matches!(
//!     yaml_guard::check(&deep),
//!     Err(yaml_guard::GuardError::TooDeep { limit: 64, .. })
//! ));
//! ```

/// The deepest nesting [`check`] accepts (fieldproof's files need about 10 levels).
pub const MAX_DEPTH: usize = 64;

/// The largest input [`check`] accepts, in bytes (1 MiB; fieldproof's files are a few KB).
pub const MAX_BYTES: usize = 1 << 20;

/// Why YAML text is refused before parsing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    /// The text is larger than the limit.
    #[error("{bytes} bytes, more than the limit of {limit} bytes for a YAML file: refused before parsing")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The text nests collections deeper than the limit.
    #[error("nested deeper than the limit of {limit} levels (line {line}, column {column}): refused before parsing")]
    TooDeep {
        /// The limit.
        limit: usize,
        /// Where the nesting first goes deeper (1-based line).
        line: usize,
        /// Where the nesting first goes deeper (1-based column, in characters).
        column: usize,
    },
}

/// Why a YAML file could not be read for parsing.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Opening or reading failed, or the text is not UTF-8.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The text is too large or nested too deep.
    #[error(transparent)]
    Refused(#[from] GuardError),
}

/// Reads a YAML file for parsing: at most one byte more than [`MAX_BYTES`] is read (a larger
/// file, or `/dev/zero`, is refused without being read whole), the text must be UTF-8 and
/// pass [`check`]. Every reader of a user's YAML file goes through here.
pub fn read_file(path: &std::path::Path) -> Result<String, ReadError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_BYTES {
        let size = std::fs::metadata(path).map_or(bytes.len() as u64, |m| m.len());
        return Err(GuardError::TooLarge {
            bytes: usize::try_from(size).unwrap_or(usize::MAX),
            limit: MAX_BYTES,
        }
        .into());
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text ({e})"),
        )
    })?;
    check(&text)?;
    Ok(text)
}

/// Checks `text` against [`MAX_BYTES`] and [`MAX_DEPTH`].
pub fn check(text: &str) -> Result<(), GuardError> {
    check_with(text, MAX_DEPTH, MAX_BYTES)
}

/// Checks `text` against the given limits: at most `max_bytes` bytes, collections nested
/// at most `max_depth` deep.
pub fn check_with(text: &str, max_depth: usize, max_bytes: usize) -> Result<(), GuardError> {
    if text.len() > max_bytes {
        return Err(GuardError::TooLarge {
            bytes: text.len(),
            limit: max_bytes,
        });
    }
    let mut scan = Scanner::new(text.as_bytes(), Some(max_depth));
    scan.run()
}

/// The deepest nesting of collections in `text` as the guard measures it (never less than
/// the depth of the parsed document, counting a scalar as 0 and a collection as one more
/// than its deepest child).
pub fn nesting_depth(text: &str) -> usize {
    let mut scan = Scanner::new(text.as_bytes(), None);
    // Without a limit the scan cannot fail.
    let _ = scan.run();
    scan.deepest
}

/// A block collection open at an indentation column (libyaml's indent stack).
struct Indent {
    column: usize,
    mapping: bool,
    /// A sequence at the mapping's own column (`key:\n- item`) nests one level more.
    indentless: bool,
}

/// An open flow collection.
struct FlowLevel {
    sequence: bool,
    /// A `key: value` pair inside a flow sequence is a mapping one level deeper.
    pair: bool,
    /// The deepest nesting within this collection.
    peak: usize,
    /// The deepest nesting within its current element.
    element_peak: usize,
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
    column: usize,
    flow: usize,
    flow_levels: Vec<FlowLevel>,
    pairs: usize,
    indents: Vec<Indent>,
    indentless: usize,
    simple_key_allowed: bool,
    /// Column of the token a `:` on this line would make a mapping key.
    key_column: Option<usize>,
    /// The deepest nesting within that token (a new mapping holds it one level deeper).
    key_peak: usize,
    limit: Option<usize>,
    deepest: usize,
}

/// The end of the scan: `Ok` when libyaml would stop here (end of input or its syntax
/// error), `Err` when the nesting is too deep.
type Flow = Result<(), GuardError>;

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8], limit: Option<usize>) -> Self {
        let bom = if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        Scanner {
            b,
            i: bom,
            line: 0,
            column: 0,
            flow: 0,
            flow_levels: Vec::new(),
            pairs: 0,
            indents: Vec::new(),
            indentless: 0,
            simple_key_allowed: true,
            key_column: None,
            key_peak: 0,
            limit,
            deepest: 0,
        }
    }

    fn at(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn eof(&self) -> bool {
        self.i >= self.b.len()
    }

    /// The length of a line break at offset `k` (`\n`, `\r\n`, `\r`, NEL, LS, PS), or 0.
    fn break_len_at(&self, k: usize) -> usize {
        match (self.at(k), self.at(k + 1), self.at(k + 2)) {
            (b'\r', b'\n', _) => 2,
            (b'\r' | b'\n', _, _) => 1,
            (0xC2, 0x85, _) => 2,
            (0xE2, 0x80, 0xA8 | 0xA9) => 3,
            _ => 0,
        }
    }

    fn is_break(&self) -> bool {
        self.break_len_at(0) > 0
    }

    fn is_blank_at(&self, k: usize) -> bool {
        matches!(self.at(k), b' ' | b'\t')
    }

    /// Blank, break or end of input at offset `k`.
    fn is_blankz_at(&self, k: usize) -> bool {
        self.i + k >= self.b.len() || self.is_blank_at(k) || self.break_len_at(k) > 0
    }

    /// Advances one character (not a line break).
    fn skip(&mut self) {
        self.i += 1;
        while self.i < self.b.len() && self.b[self.i] & 0xC0 == 0x80 {
            self.i += 1;
        }
        self.column += 1;
    }

    /// Advances over a line break.
    fn skip_break(&mut self) {
        self.i += self.break_len_at(0).max(1);
        self.line += 1;
        self.column = 0;
    }

    fn skip_to_break(&mut self) {
        while !self.eof() && !self.is_break() {
            self.skip();
        }
    }

    fn depth(&self) -> usize {
        self.indents.len() + self.indentless + self.flow + self.pairs
    }

    /// Notes the nesting now, refusing it above the limit.
    fn deeper(&mut self) -> Flow {
        self.reach(self.depth())
    }

    /// Notes nesting `depth` reached, refusing it above the limit.
    fn reach(&mut self, depth: usize) -> Flow {
        self.deepest = self.deepest.max(depth);
        match self.flow_levels.last_mut() {
            Some(level) => {
                level.peak = level.peak.max(depth);
                level.element_peak = level.element_peak.max(depth);
            }
            None => self.key_peak = self.key_peak.max(depth),
        }
        match self.limit {
            Some(limit) if depth > limit => Err(GuardError::TooDeep {
                limit,
                line: self.line + 1,
                column: self.column + 1,
            }),
            _ => Ok(()),
        }
    }

    /// The column of the innermost block collection, `None` at the top.
    fn indent(&self) -> Option<usize> {
        self.indents.last().map(|i| i.column)
    }

    /// libyaml's `unroll_indent`: closes block collections deeper than `column`.
    fn unroll(&mut self, column: Option<usize>) {
        if self.flow > 0 {
            return;
        }
        while let Some(top) = self.indents.last() {
            if column.is_some_and(|c| top.column <= c) {
                break;
            }
            if top.indentless {
                self.indentless -= 1;
            }
            self.indents.pop();
        }
    }

    /// libyaml's `roll_indent`: opens a block collection at `column` when deeper (`true`).
    fn roll(&mut self, column: usize, mapping: bool) -> Result<bool, GuardError> {
        if self.flow > 0 {
            return Ok(false);
        }
        match self.indents.last_mut() {
            Some(top) if top.column >= column => {
                if top.column == column {
                    if mapping && top.indentless {
                        // A key at the mapping's column ends its indentless sequence.
                        top.indentless = false;
                        self.indentless -= 1;
                    } else if !mapping && top.mapping && !top.indentless {
                        top.indentless = true;
                        self.indentless += 1;
                        self.deeper()?;
                    }
                }
                Ok(false)
            }
            _ => {
                self.indents.push(Indent {
                    column,
                    mapping,
                    indentless: false,
                });
                self.deeper()?;
                Ok(true)
            }
        }
    }

    /// Marks the start of a token that a following `:` could make a key.
    fn token_start(&mut self) {
        if self.flow == 0 && self.simple_key_allowed && self.key_column.is_none() {
            self.key_column = Some(self.column);
            self.key_peak = self.depth();
        }
    }

    /// libyaml's `scan_skip_to_next_token`: spaces, comments, line breaks.
    fn skip_to_next_token(&mut self) {
        loop {
            if self.column == 0 && self.b[self.i.min(self.b.len())..].starts_with(b"\xEF\xBB\xBF") {
                self.skip();
            }
            while self.at(0) == b' '
                || ((self.flow > 0 || !self.simple_key_allowed) && self.at(0) == b'\t')
            {
                self.skip();
            }
            if self.at(0) == b'#' {
                self.skip_to_break();
            }
            if self.eof() || !self.is_break() {
                return;
            }
            self.skip_break();
            self.key_column = None;
            if self.flow == 0 {
                self.simple_key_allowed = true;
            }
        }
    }

    fn run(&mut self) -> Flow {
        loop {
            self.skip_to_next_token();
            if self.eof() {
                return Ok(());
            }
            self.unroll(Some(self.column));
            let c = self.at(0);
            let next_blankz = self.is_blankz_at(1);
            if self.column == 0 && c == b'%' {
                // A directive.
                self.skip_to_break();
                continue;
            }
            if self.column == 0
                && ((c == b'-' && self.at(1) == b'-' && self.at(2) == b'-')
                    || (c == b'.' && self.at(1) == b'.' && self.at(2) == b'.'))
                && self.is_blankz_at(3)
            {
                // A document marker closes every block collection.
                self.unroll(None);
                self.skip();
                self.skip();
                self.skip();
                self.simple_key_allowed = false;
                self.key_column = None;
                continue;
            }
            match c {
                b'[' | b'{' => {
                    self.token_start();
                    self.flow += 1;
                    self.flow_levels.push(FlowLevel {
                        sequence: c == b'[',
                        pair: false,
                        peak: 0,
                        element_peak: 0,
                    });
                    self.deeper()?;
                    self.skip();
                    self.simple_key_allowed = true;
                }
                b']' | b'}' => {
                    if let Some(level) = self.flow_levels.pop() {
                        self.flow -= 1;
                        if level.pair {
                            self.pairs -= 1;
                        }
                        // The parent's element holds everything this collection held.
                        self.reach(level.peak)?;
                    }
                    self.skip();
                    self.simple_key_allowed = false;
                }
                b',' => {
                    if let Some(level) = self.flow_levels.last_mut() {
                        if level.pair {
                            level.pair = false;
                            self.pairs -= 1;
                        }
                    }
                    // The next element starts at the collection's own depth.
                    let depth = self.depth();
                    if let Some(level) = self.flow_levels.last_mut() {
                        level.element_peak = depth;
                    }
                    self.skip();
                    self.simple_key_allowed = true;
                }
                b'-' if next_blankz => {
                    if self.flow == 0 {
                        self.roll(self.column, false)?;
                    }
                    self.skip();
                    self.simple_key_allowed = true;
                    if self.flow == 0 {
                        self.key_column = None;
                    }
                }
                b'?' if self.flow > 0 || next_blankz => {
                    if self.flow == 0 {
                        self.roll(self.column, true)?;
                    } else {
                        self.flow_pair()?;
                    }
                    self.skip();
                    self.simple_key_allowed = self.flow == 0;
                    if self.flow == 0 {
                        self.key_column = None;
                    }
                }
                b':' if self.flow > 0 || next_blankz => {
                    // After a key, no key may start before the next line (libyaml).
                    let allowed_next = self.flow == 0 && self.key_column.is_none();
                    if self.flow == 0 {
                        let key = self.key_column.unwrap_or(self.column);
                        let key_peak = if self.key_column.is_some() {
                            self.key_peak
                        } else {
                            0
                        };
                        if self.roll(key, true)? {
                            // The key, read before the mapping opened, is inside it.
                            self.reach(key_peak + 1)?;
                        }
                        self.key_column = None;
                    } else {
                        self.flow_pair()?;
                    }
                    self.skip();
                    self.simple_key_allowed = allowed_next;
                }
                b'*' | b'&' => {
                    self.token_start();
                    self.skip();
                    let start = self.i;
                    while self.at(0).is_ascii_alphanumeric() || matches!(self.at(0), b'_' | b'-') {
                        self.skip();
                    }
                    if self.i == start
                        || !(self.is_blankz_at(0) || b"?:,]}%@`".contains(&self.at(0)))
                    {
                        return Ok(()); // libyaml: not an anchor or alias
                    }
                    self.simple_key_allowed = false;
                }
                b'!' => {
                    self.token_start();
                    self.tag();
                    if !(self.is_blankz_at(0) || (self.flow > 0 && self.at(0) == b',')) {
                        return Ok(()); // libyaml: a tag ends at a blank
                    }
                    self.simple_key_allowed = false;
                }
                b'|' | b'>' if self.flow == 0 => {
                    if !self.block_scalar() {
                        return Ok(());
                    }
                    self.simple_key_allowed = true;
                    self.key_column = None;
                }
                b'\'' | b'"' => {
                    self.token_start();
                    self.quoted(c);
                    self.simple_key_allowed = false;
                }
                b'\t' | b'%' | b'@' | b'`' => return Ok(()), // libyaml: cannot start a token
                b'|' | b'>' => return Ok(()),                // libyaml: no block scalar in a flow
                _ => {
                    self.token_start();
                    if !self.plain() {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// A `?` or `:` in a flow sequence makes its element a one-pair mapping, one level
    /// deeper than what the element held so far.
    fn flow_pair(&mut self) -> Flow {
        let Some(level) = self.flow_levels.last_mut() else {
            return Ok(());
        };
        if !level.sequence || level.pair {
            return Ok(());
        }
        level.pair = true;
        self.pairs += 1;
        let peak = level.element_peak + 1;
        self.reach(peak)?;
        self.deeper()
    }

    /// A tag: `!`, `!!str`, `!local`, `!e!suffix` or verbatim `!<uri>`.
    fn tag(&mut self) {
        self.skip();
        if self.at(0) == b'<' {
            self.skip();
            while self.at(0).is_ascii_alphanumeric()
                || b"-_;/?:@&=+$,.%!~*'()[]".contains(&self.at(0))
            {
                self.skip();
            }
            if self.at(0) == b'>' {
                self.skip();
            }
        } else {
            while self.at(0).is_ascii_alphanumeric() || b"-_;/?:@&=+$.%!~*'()".contains(&self.at(0))
            {
                self.skip();
            }
        }
    }

    /// A single- or double-quoted scalar (it may span lines).
    fn quoted(&mut self, quote: u8) {
        self.skip();
        while !self.eof() {
            let c = self.at(0);
            if self.is_break() {
                self.skip_break();
            } else if quote == b'\'' && c == b'\'' && self.at(1) == b'\'' {
                self.skip();
                self.skip();
            } else if c == quote {
                self.skip();
                return;
            } else if quote == b'"' && c == b'\\' {
                self.skip();
                if self.is_break() {
                    self.skip_break();
                } else if !self.eof() {
                    self.skip();
                }
            } else {
                self.skip();
            }
        }
    }

    /// libyaml's `scan_plain_scalar`: words up to `: `, ` #` (and flow indicators in a flow
    /// collection); in a block, continued on the next lines indented past the collection.
    /// `false` where libyaml reports a syntax error.
    fn plain(&mut self) -> bool {
        let indent = self.indent().map_or(0, |c| c + 1);
        let mut leading_blanks = false;
        loop {
            if self.column == 0
                && ((self.at(0) == b'-' && self.at(1) == b'-' && self.at(2) == b'-')
                    || (self.at(0) == b'.' && self.at(1) == b'.' && self.at(2) == b'.'))
                && self.is_blankz_at(3)
            {
                break;
            }
            if self.at(0) == b'#' {
                break;
            }
            let mut ended = false;
            while !self.is_blankz_at(0) {
                let c = self.at(0);
                if self.flow > 0 && c == b':' && b",?[]{}".contains(&self.at(1)) {
                    return false; // libyaml: "found unexpected ':'"
                }
                if (c == b':' && self.is_blankz_at(1)) || (self.flow > 0 && b",[]{}".contains(&c)) {
                    ended = true;
                    break;
                }
                self.skip();
            }
            if ended || self.eof() {
                break;
            }
            while self.is_blank_at(0) || self.is_break() {
                if self.is_break() {
                    self.skip_break();
                    leading_blanks = true;
                    self.key_column = None;
                } else {
                    self.skip();
                }
            }
            if self.flow == 0 && self.column < indent {
                break;
            }
        }
        self.simple_key_allowed = leading_blanks;
        true
    }

    /// A literal or folded block scalar: its header, then every line of its content.
    /// `false` where libyaml reports a syntax error.
    fn block_scalar(&mut self) -> bool {
        self.skip();
        let mut increment = 0;
        let c = self.at(0);
        if c == b'+' || c == b'-' {
            self.skip();
            if self.at(0).is_ascii_digit() {
                increment = usize::from(self.at(0) - b'0');
                if increment == 0 {
                    return false;
                }
                self.skip();
            }
        } else if c.is_ascii_digit() {
            increment = usize::from(c - b'0');
            if increment == 0 {
                return false;
            }
            self.skip();
            if self.at(0) == b'+' || self.at(0) == b'-' {
                self.skip();
            }
        }
        while self.is_blank_at(0) {
            self.skip();
        }
        if self.at(0) == b'#' {
            self.skip_to_break();
        }
        if self.eof() {
            return true;
        }
        if !self.is_break() {
            return false;
        }
        self.skip_break();
        let parent = self.indent();
        let mut indent = if increment > 0 {
            parent.map_or(increment, |p| p + increment)
        } else {
            0
        };
        let mut max_indent = 0;
        if !self.block_scalar_breaks(indent, &mut max_indent) {
            return false;
        }
        if indent == 0 {
            indent = max_indent.max(parent.map_or(0, |p| p + 1)).max(1);
        }
        while self.column == indent && !self.eof() {
            self.skip_to_break();
            if self.eof() {
                break;
            }
            self.skip_break();
            if !self.block_scalar_breaks(indent, &mut max_indent) {
                return false;
            }
        }
        self.key_column = None;
        true
    }

    /// libyaml's `scan_block_scalar_breaks`: indentation and empty lines. `false` on a tab
    /// in the indentation (libyaml's error).
    fn block_scalar_breaks(&mut self, indent: usize, max_indent: &mut usize) -> bool {
        loop {
            while (indent == 0 || self.column < indent) && self.at(0) == b' ' {
                self.skip();
            }
            *max_indent = (*max_indent).max(self.column);
            if (indent == 0 || self.column < indent) && self.at(0) == b'\t' {
                return false;
            }
            if self.eof() || !self.is_break() {
                return true;
            }
            self.skip_break();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_flow_and_block_nesting() {
        assert_eq!(nesting_depth(""), 0);
        assert_eq!(nesting_depth("plain"), 0);
        assert_eq!(nesting_depth("[[1], {a: [2]}]"), 3);
        assert_eq!(nesting_depth("a:\n  b:\n    c: 1\n"), 3);
        assert_eq!(nesting_depth("- - - x\n"), 3);
        assert_eq!(nesting_depth("a:\n- b: [1]\n"), 4);
        assert_eq!(nesting_depth("a: {b: [1]}\nc: 2\n"), 3);
    }

    #[test]
    fn brackets_inside_text_do_not_count() {
        let text =
            "a: '[[[['\nb: \"{{{{\\\"[[\"\nc: ranges[0][1]\nd: | \n  [[[[\n  {{{{\ne: [x] # [[[[\n";
        assert_eq!(nesting_depth(text), 2);
        assert_eq!(nesting_depth("f: >-\n  [[[[\n\n  [[[[\ng: 1\n"), 1);
        assert_eq!(nesting_depth("h: a\n  [[[[ continued\n"), 1);
        assert_eq!(nesting_depth("[it's, \"'\", [1]]"), 2);
    }

    #[test]
    fn text_that_only_looks_like_a_string_hides_nothing() {
        // An apostrophe inside a plain scalar opens no quote.
        assert_eq!(nesting_depth("[a 'b, [[[1]]], c']"), 4);
        // A block scalar ends at the first line indented less than its content.
        assert_eq!(nesting_depth("a: |\n    x\n  [[[1]]]\n"), 4);
        // A line separator breaks the line for libyaml too.
        assert_eq!(nesting_depth("a: |\n  x\u{2028}[[[1]]]\n"), 4);
        // A tag ends at a blank or a comma; a bracket after it is libyaml's error.
        assert_eq!(nesting_depth("[!t,[[[1]]], !!str [a]]"), 4);
        assert_eq!(nesting_depth("[!t]]]], [[[1]]]]"), 1);
        assert!(serde_yaml::from_str::<serde_yaml::Value>("[!t]]]], [[[1]]]]").is_err());
    }

    #[test]
    fn refuses_deep_and_large_input_quickly() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(
            check(&deep),
            Err(GuardError::TooDeep {
                limit: MAX_DEPTH,
                line: 1,
                column: 65
            })
        );
        let mut nested = String::new();
        for _ in 0..50_000 {
            nested.push_str("{a: ");
        }
        assert!(matches!(check(&nested), Err(GuardError::TooDeep { .. })));
        let big = "a: 1\n".repeat(MAX_BYTES / 5 + 1);
        assert!(matches!(check(&big), Err(GuardError::TooLarge { .. })));
        let message = check(&deep).unwrap_err().to_string();
        assert!(
            message.contains("deeper than the limit of 64 levels"),
            "{message}"
        );
    }

    #[test]
    fn accepts_the_repositorys_files() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut seen = 0;
        for dir in ["robots", "worlds", "config/scenarios", "config"] {
            let mut stack = vec![root.join(dir)];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let p = e.path();
                    if p.is_dir() && dir == "robots" {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "yaml") {
                        let text = std::fs::read_to_string(&p).unwrap();
                        assert_eq!(check(&text), Ok(()), "{}", p.display());
                        seen += 1;
                    }
                }
            }
        }
        assert!(seen > 10, "{seen}");
    }
}
