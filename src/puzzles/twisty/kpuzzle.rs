//! cubing.js's KPuzzle JSON, as twips reads it:
//!
//! ```json
//! { "name": "2x2x2",
//!   "orbits": [{ "orbitName": "CORNERS", "numPieces": 8, "numOrientations": 3 }],
//!   "defaultPattern": { "CORNERS": { "pieces": [0, 1, 2, 3, 4, 5, 6, 7],
//!                                    "orientation": [0, 0, 0, 0, 0, 0, 0, 0] } },
//!   "moves": { "U": { "CORNERS": { "permutation": [1, 2, 3, 0, 4, 5, 6, 7],
//!                                  "orientationDelta": [0, 0, 0, 0, 0, 0, 0, 0] } } } }
//! ```
//!
//! Pieces are 0-based; equal pieces are identical. The older spellings
//! (`orbits` as an object, `orientations`, a move's `orientation`) are read
//! too; `derivedMoves` (named sequences of moves) are not moves of the
//! search and are skipped.

use serde_json::Value;

use super::def::{Definition, Format, MoveDef, Pattern, Set, Transform};
use super::tws::stem;
use crate::puzzles::sliding::PuzzleError;

/// One step of a path into the JSON document.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

struct Doc<'a> {
    text: &'a str,
    origin: &'a str,
}

impl Doc<'_> {
    /// An error at the value `path` leads to (found by scanning the text
    /// for its keys in order: close enough to point at the right line).
    fn error(&self, path: &[Step<'_>], message: String, help: &str) -> PuzzleError {
        PuzzleError {
            origin: self.origin.to_string(),
            location: self.locate(path),
            message,
            help: help.to_string(),
        }
    }

    fn locate(&self, path: &[Step<'_>]) -> Option<(usize, usize)> {
        let bytes = self.text.as_bytes();
        let mut at = 0usize;
        for step in path {
            match step {
                Step::Key(k) => {
                    let quoted = format!("\"{k}\"");
                    // A key is followed by a colon; skip mentions as values.
                    loop {
                        at += self.text[at..].find(&quoted)? + quoted.len();
                        if self.text[at..].trim_start().starts_with(':') {
                            break;
                        }
                    }
                }
                Step::Index(n) => {
                    at += self.text[at..].find('[')? + 1;
                    let mut depth = 0;
                    let mut seen = 0;
                    while at < bytes.len() {
                        match bytes[at] {
                            b'[' | b'{' => depth += 1,
                            b']' | b'}' if depth == 0 => break,
                            b']' | b'}' => depth -= 1,
                            b',' if depth == 0 => seen += 1,
                            c if depth == 0 && seen == *n && !c.is_ascii_whitespace() => break,
                            _ => {}
                        }
                        at += 1;
                    }
                }
            }
        }
        Some(self.line_col(at))
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..self.text.floor_char_boundary(offset)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    /// A whole number below `bound` at `path`.
    fn number(
        &self,
        v: &Value,
        path: &[Step<'_>],
        what: &str,
        bound: u64,
    ) -> Result<u64, PuzzleError> {
        match v.as_u64() {
            Some(n) if n < bound => Ok(n),
            Some(n) => Err(self.error(
                path,
                format!("{what} {n} is out of range: it must be below {bound}"),
                "pieces and positions count from 0; orientations from 0 to numOrientations - 1",
            )),
            None if v.as_i64().is_some() => Err(self.error(
                path,
                format!("{what} {v} is negative"),
                "pieces and positions count from 0; orientations from 0 to numOrientations - 1 (write an inverse twist as numOrientations - k)",
            )),
            None => Err(self.error(
                path,
                format!("{what} {v} is not a whole number"),
                "write the number without quotes or a fraction",
            )),
        }
    }

    /// An array of `len` numbers below `bound` at `path`.
    fn numbers(
        &self,
        v: Option<&Value>,
        path: &[Step<'_>],
        set: &Set,
        what: &str,
        bound: u64,
    ) -> Result<Option<Vec<u64>>, PuzzleError> {
        let Some(v) = v else { return Ok(None) };
        let Some(items) = v.as_array() else {
            return Err(self.error(
                path,
                format!("{what} of orbit {} is not an array", set.name),
                "write a list of numbers, one a position",
            ));
        };
        if items.len() != set.size {
            return Err(self.error(
                path,
                format!(
                    "orbit {} has {} pieces, but this {what} has {} number{}",
                    set.name,
                    set.size,
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                ),
                "give one number for each position of the orbit",
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let mut p = path.to_vec();
                p.push(Step::Index(i));
                self.number(x, &p, what, bound)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// Reads KPuzzle JSON; `origin` names it in errors.
pub(super) fn parse(text: &str, origin: &str) -> Result<Definition, PuzzleError> {
    let doc = Doc { text, origin };
    let root = root(&doc)?;
    let name = match root.get("name") {
        Some(Value::String(s)) => s.clone(),
        _ => stem(origin),
    };
    let (sets, set_at) = orbits(&doc, &root)?;
    let solved = solved(&doc, &root, &sets)?;
    let (moves, move_at) = moves(&doc, &root, &sets)?;
    Ok(Definition {
        name,
        format: Format::KPuzzle,
        sets,
        solved,
        scramble: None,
        moves,
        origin: origin.to_string(),
        set_at,
        move_at,
        rotations: Vec::new(),
        aliases: Vec::new(),
        illegal: Vec::new(),
    })
}

/// The file's JSON object, each key of each object given once.
fn root(doc: &Doc) -> Result<serde_json::Map<String, Value>, PuzzleError> {
    let (text, origin) = (doc.text, doc.origin);
    let twice = std::cell::RefCell::new(None);
    let root = read_json(text, &twice).map_err(|e| PuzzleError {
        origin: origin.to_string(),
        location: match twice.borrow().as_ref() {
            // serde_json stops just past the key: point at its opening quote.
            Some(key) => {
                let line_start: usize = text.split_inclusive('\n').take(e.line() - 1).map(str::len).sum();
                let end = text.floor_char_boundary(line_start + e.column());
                let quoted = format!("\"{key}\"");
                text[..end].rfind(&quoted).map(|at| doc.line_col(at))
            }
            None => (e.line() > 0).then(|| (e.line(), e.column().max(1))),
        },
        message: match twice.borrow().as_ref() {
            Some(key) => format!("the key \"{key}\" is given twice in one object"),
            None => format!("not valid JSON: {e}"),
        },
        help: match twice.borrow().as_ref() {
            Some(_) => "give each orbit, move and field once (a reader that keeps one of the two counts another puzzle)".into(),
            None => "a KPuzzle definition is a JSON object with orbits, defaultPattern and moves".into(),
        },
    })?;
    let Value::Object(root) = root else {
        return Err(doc.error(
            &[],
            "the file is JSON but not an object".into(),
            "a KPuzzle definition is a JSON object with orbits, defaultPattern and moves",
        ));
    };
    Ok(root)
}

/// Things of the file, each with the line and column it is given at.
type Located<T> = (Vec<T>, Vec<(usize, usize)>);

/// The orbits, and where each is declared: an array (cubing.js today) or
/// an object (older files).
fn orbits(doc: &Doc, root: &serde_json::Map<String, Value>) -> Result<Located<Set>, PuzzleError> {
    let mut sets = Vec::new();
    let mut set_at = Vec::new();
    let orbit = |name: &str, v: &Value, path: &[Step<'_>]| -> Result<Set, PuzzleError> {
        let field = |k: &str| v.get(k).and_then(Value::as_u64);
        let size = field("numPieces").filter(|&n| (1..=u64::from(u16::MAX)).contains(&n));
        let Some(size) = size else {
            return Err(doc.error(
                path,
                format!("orbit {name} has no numPieces from 1 to 65535"),
                "give each orbit \"numPieces\" and \"numOrientations\"",
            ));
        };
        let o = field("numOrientations")
            .or_else(|| field("orientations"))
            .filter(|&n| (1..=255).contains(&n));
        let Some(o) = o else {
            return Err(doc.error(
                path,
                format!("orbit {name} has no numOrientations from 1 to 255"),
                "give each orbit \"numPieces\" and \"numOrientations\"",
            ));
        };
        Ok(Set {
            name: name.to_string(),
            size: size as usize,
            orientations: o as u8,
        })
    };
    match root.get("orbits") {
        Some(Value::Array(list)) => {
            for (i, v) in list.iter().enumerate() {
                let path = [Step::Key("orbits"), Step::Index(i)];
                let Some(n) = v.get("orbitName").and_then(Value::as_str) else {
                    return Err(doc.error(
                        &path,
                        format!("orbit {i} has no orbitName"),
                        "give each orbit \"orbitName\", \"numPieces\" and \"numOrientations\"",
                    ));
                };
                if sets.iter().any(|s: &Set| s.name == n) {
                    return Err(doc.error(
                        &path,
                        format!("orbit {n} is declared twice"),
                        "give each orbit a name of its own",
                    ));
                }
                sets.push(orbit(n, v, &path)?);
                set_at.push(doc.locate(&path).unwrap_or((1, 1)));
            }
        }
        Some(Value::Object(map)) => {
            for (n, v) in map {
                let path = [Step::Key("orbits"), Step::Key(n)];
                sets.push(orbit(n, v, &path)?);
                set_at.push(doc.locate(&path).unwrap_or((1, 1)));
            }
        }
        _ => {
            return Err(doc.error(
                &[],
                "no \"orbits\" list".into(),
                "give \"orbits\": [{\"orbitName\": \"CORNERS\", \"numPieces\": 8, \"numOrientations\": 3}, ...]",
            ));
        }
    }
    if sets.is_empty() {
        return Err(doc.error(
            &[Step::Key("orbits")],
            "no orbits".into(),
            "give at least one orbit",
        ));
    }
    if sets.is_empty() {
        return Err(doc.error(
            &[Step::Key("orbits")],
            "no orbits".into(),
            "give at least one orbit",
        ));
    }
    Ok((sets, set_at))
}

/// Refuses a key of `map` (at `at`) that names no orbit.
fn known_orbits(
    doc: &Doc,
    sets: &[Set],
    map: &serde_json::Map<String, Value>,
    at: &[Step<'_>],
) -> Result<(), PuzzleError> {
    for k in map.keys() {
        if !sets.iter().any(|s| s.name == *k) {
            let mut path = at.to_vec();
            path.push(Step::Key(k));
            let names: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
            return Err(doc.error(
                &path,
                format!("unknown orbit {k:?}"),
                &format!("the orbits are {}", names.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The solved pattern (`defaultPattern`, or an older file's name for it).
fn solved(
    doc: &Doc,
    root: &serde_json::Map<String, Value>,
    sets: &[Set],
) -> Result<Pattern, PuzzleError> {
    let pattern_key = ["defaultPattern", "startStateData", "startPieces"]
        .into_iter()
        .find(|k| root.contains_key(*k));
    let Some(pattern_key) = pattern_key else {
        return Err(doc.error(
            &[],
            "no \"defaultPattern\"".into(),
            "give the solved pattern: \"defaultPattern\": {\"CORNERS\": {\"pieces\": [...], \"orientation\": [...]}}",
        ));
    };
    let Some(pattern) = root[pattern_key].as_object() else {
        return Err(doc.error(
            &[Step::Key(pattern_key)],
            format!("{pattern_key} is not an object"),
            "map each orbit's name to its pieces and orientation",
        ));
    };
    known_orbits(doc, sets, pattern, &[Step::Key(pattern_key)])?;
    let mut solved = Pattern {
        pieces: sets.iter().map(|s| (0..s.size as u16).collect()).collect(),
        ori: sets.iter().map(|s| vec![0; s.size]).collect(),
    };
    for (s, set) in sets.iter().enumerate() {
        let Some(v) = pattern.get(&set.name) else {
            continue;
        };
        let at = [Step::Key(pattern_key), Step::Key(&set.name)];
        if let Some(m) = v.get("orientationMod").and_then(Value::as_array)
            && m.iter().any(|x| x.as_u64().is_some_and(|x| x > 1))
        {
            let mut path = at.to_vec();
            path.push(Step::Key("orientationMod"));
            return Err(doc.error(
                &path,
                format!("orbit {}: orientationMod (orientations that do not matter) is not supported", set.name),
                "remove orientationMod, or give the orbit numOrientations 1 if its orientation never matters",
            ));
        }
        let field = |k: &'static str| {
            let mut path = at.to_vec();
            path.push(Step::Key(k));
            (v.get(k), path)
        };
        let (pieces, path) = field("pieces");
        if let Some(p) = doc.numbers(pieces, &path, set, "piece", set.size as u64)? {
            solved.pieces[s] = p.iter().map(|&x| x as u16).collect();
        }
        let (ori, path) = field("orientation");
        if let Some(o) = doc.numbers(ori, &path, set, "orientation", u64::from(set.orientations))? {
            solved.ori[s] = o.iter().map(|&x| x as u8).collect();
        }
    }
    Ok(solved)
}

/// The moves, and where each is defined.
fn moves(
    doc: &Doc,
    root: &serde_json::Map<String, Value>,
    sets: &[Set],
) -> Result<Located<MoveDef>, PuzzleError> {
    let Some(moves_v) = root.get("moves").and_then(Value::as_object) else {
        return Err(doc.error(
            &[],
            "no \"moves\" object".into(),
            "give \"moves\": {\"U\": {\"CORNERS\": {\"permutation\": [...], \"orientationDelta\": [...]}}, ...}",
        ));
    };
    if moves_v.is_empty() {
        return Err(doc.error(
            &[Step::Key("moves")],
            "no moves".into(),
            "give at least one move",
        ));
    }
    let mut moves = Vec::new();
    let mut move_at = Vec::new();
    for (name, mv) in moves_v {
        let at = [Step::Key("moves"), Step::Key(name)];
        // A leading digit is a slice (`2R`), as in .tws files.
        if name.is_empty() || name.contains(['\'', ' ']) {
            return Err(doc.error(
                &at,
                format!("a move cannot be called {name:?}: ' marks an inverse, and spaces separate moves"),
                "name moves without ' or spaces, e.g. U, R, 2R, Rw",
            ));
        }
        let Some(mv) = mv.as_object() else {
            return Err(doc.error(
                &at,
                format!("move {name} is not an object"),
                "map each orbit the move changes to its permutation and orientationDelta",
            ));
        };
        let t = transform(doc, sets, name, mv, &at)?;
        if t.is_identity() {
            return Err(doc.error(
                &at,
                format!("move {name} changes nothing"),
                "give the move's permutation (and orientationDelta) for the orbits it changes, or remove it",
            ));
        }
        move_at.push(doc.locate(&at).unwrap_or((1, 1)));
        moves.push(MoveDef {
            name: name.clone(),
            transform: t,
        });
    }
    Ok((moves, move_at))
}

/// Move `name`'s transform, from its object `mv` (at `at`).
fn transform(
    doc: &Doc,
    sets: &[Set],
    name: &str,
    mv: &serde_json::Map<String, Value>,
    at: &[Step<'_>],
) -> Result<Transform, PuzzleError> {
    known_orbits(doc, sets, mv, at)?;
    let mut t = Transform::identity(sets);
    for (s, set) in sets.iter().enumerate() {
        let Some(v) = mv.get(&set.name) else {
            continue;
        };
        let mut path = at.to_vec();
        path.push(Step::Key(&set.name));
        let mut perm_path = path.clone();
        perm_path.push(Step::Key("permutation"));
        if let Some(p) = doc.numbers(
            v.get("permutation"),
            &perm_path,
            set,
            "position",
            set.size as u64,
        )? {
            let mut seen = vec![false; set.size];
            for (i, &x) in p.iter().enumerate() {
                if std::mem::replace(&mut seen[x as usize], true) {
                    let mut here = perm_path.clone();
                    here.push(Step::Index(i));
                    return Err(doc.error(
                        &here,
                        format!("{x} appears twice in move {name}'s permutation of orbit {}: this is not a permutation", set.name),
                        "a move's permutation lists each position of the orbit exactly once",
                    ));
                }
            }
            t.perm[s] = p.iter().map(|&x| x as u16).collect();
        }
        let key = if v.get("orientationDelta").is_some() {
            "orientationDelta"
        } else {
            "orientation"
        };
        let mut ori_path = path.clone();
        ori_path.push(Step::Key(key));
        if let Some(o) = doc.numbers(
            v.get(key),
            &ori_path,
            set,
            "orientation",
            u64::from(set.orientations),
        )? {
            t.ori[s] = o.iter().map(|&x| x as u8).collect();
        }
    }
    Ok(t)
}

/// JSON read into a [`Value`], refusing an object that names a key twice
/// (serde_json alone keeps one of the two silently, and the count would be
/// of a puzzle other than the file's): the key goes into `twice`, and the
/// error is serde_json's, with the line and column of the second key.
fn read_json(text: &str, twice: &std::cell::RefCell<Option<String>>) -> serde_json::Result<Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Unique(twice).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Reads a [`Value`] whose objects have distinct keys, at every depth.
#[derive(Clone, Copy)]
struct Unique<'a>(&'a std::cell::RefCell<Option<String>>);

impl<'de> serde::de::DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                *self.0.borrow_mut() = Some(key);
                return Err(serde::de::Error::custom("a key given twice"));
            }
            let v = map.next_value_seed(self)?;
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}
