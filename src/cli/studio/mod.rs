//! `reach studio [FILE]`: a page to design sliding-block puzzles in, and
//! to count, solve and census twisty ones, served on 127.0.0.1 (feature
//! `studio`).
//!
//! The page (`page/`: plain HTML, CSS and script, compiled into the
//! binary) draws the board and edits the puzzle file's text side by side.
//! Each edit posts the text to `/api/jobs`; the server parses it (an error
//! comes back at once, with its line) and starts a job in a thread of its
//! own: the count, the shortest solution and the hardest position of the
//! start's component, or a census; for a twisty puzzle's text (`.tws` or
//! KPuzzle, told apart as the command line tells files apart), the count
//! from solved as its God's-number table and a scramble's solution, or
//! its census (`twisty`). The page follows a job through
//! server-sent events (`/api/jobs/ID/events`): a line of progress per
//! level, then each part's result. A new edit cancels the job before it; a
//! job stops at the studio's work limits (states, memory, seconds), so the
//! page cannot exhaust the machine.
//!
//! The server answers only requests whose `Host` is its own address
//! (127.0.0.1 or localhost at its port) and whose `Origin`, when given,
//! is its own page: another site open in the same browser can neither
//! read the studio (DNS rebinding) nor drive it (a cross-site form post).

mod jobs;
mod twisty;

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};
use tiny_http::{Header, Method, Request, Response, Server};

use super::args::StudioArgs;
use super::output::say;
use jobs::{Jobs, Limits};

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/studio.js");
const STYLE: &str = include_str!("page/studio.css");

/// The puzzle a studio opens with when no file is given: a small board to
/// start from.
const BLANK: &str = "name = \"my puzzle\"\ndistinct = \"A\"\nboard = \"\"\"\nAA..\nB.CC\nB...\n\"\"\"\ngoal = \"\"\"\n....\n....\n..AA\n\"\"\"\n";

/// The largest request body taken: a puzzle file is a few KB.
const MAX_BODY: u64 = 1 << 20;

/// The studio's state, shared by the request threads.
struct Studio {
    /// The addresses a request's `Host` may name.
    hosts: Vec<String>,
    /// The origins a request's `Origin` may name.
    origins: Vec<String>,
    /// The file it edits, if one was given: Save writes it.
    file: Option<PathBuf>,
    /// The text it opened with.
    text: String,
    jobs: Jobs,
}

pub(super) fn studio(a: &StudioArgs) -> Result<ExitCode> {
    let text = match &a.file {
        Some(f) if f.exists() => std::fs::read_to_string(f)
            .with_context(|| format!("{}: cannot read the puzzle file", f.display()))?,
        _ => BLANK.to_string(),
    };
    let server = Server::http(("127.0.0.1", a.port))
        .map_err(|e| anyhow!("could not listen on 127.0.0.1:{}: {e}\n  help: give another --port, or --port 0 for any free one", a.port))?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|s| s.port())
        .ok_or_else(|| anyhow!("the studio's server has no IP address"))?;
    let studio = Arc::new(Studio {
        hosts: vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")],
        origins: vec![
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
        ],
        file: a.file.clone(),
        text,
        jobs: Jobs::new(
            Limits {
                states: a.work_states,
                seconds: a.work_seconds,
                memory: a.memory_limit,
                threads: a.run.threads.unwrap_or(0),
            },
            a.file
                .as_ref()
                .map_or("puzzle.tws".into(), |f| f.display().to_string()),
        ),
    });
    // The URL on stdout (a script reads it), the rest on stderr.
    super::output::stdout(&format!("http://127.0.0.1:{port}/\n"))?;
    say!(
        "reach studio: open http://127.0.0.1:{port}/ in a browser (listening on 127.0.0.1 only; Ctrl-C stops it){}",
        a.file
            .as_ref()
            .map_or(String::new(), |f| format!("; Save writes {}", f.display()))
    );
    for request in server.incoming_requests() {
        let studio = Arc::clone(&studio);
        std::thread::spawn(move || studio.answer(request));
    }
    Ok(ExitCode::SUCCESS)
}

/// A response of `body` with the page's headers.
fn respond(status: u16, kind: &str, body: String) -> Response<std::io::Cursor<Vec<u8>>> {
    let mut r = Response::from_string(body).with_status_code(status);
    for h in [
        format!("Content-Type: {kind}"),
        "X-Content-Type-Options: nosniff".into(),
        "Cache-Control: no-store".into(),
    ] {
        r.add_header(header(&h));
    }
    r
}

fn header(line: &str) -> Header {
    line.parse().expect("a well-formed header")
}

fn json_response(status: u16, v: &Value) -> Response<std::io::Cursor<Vec<u8>>> {
    respond(status, "application/json", v.to_string())
}

/// The studio page's policy: its own script, style and frames (the
/// solution page), and requests to its own server only.
const POLICY: &str = "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

impl Studio {
    /// Whether `request` comes from the studio's own page (or a client
    /// that names the studio as its host and no other origin).
    fn allowed(&self, request: &Request) -> bool {
        let value = |name: &'static str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.equiv(name))
                .map(|h| h.value.as_str().to_string())
        };
        let host_ok = value("Host").is_some_and(|h| self.hosts.contains(&h));
        let origin_ok = value("Origin").is_none_or(|o| self.origins.contains(&o));
        host_ok && origin_ok
    }

    fn answer(&self, mut request: Request) {
        if !self.allowed(&request) {
            let _ = request.respond(respond(
                403,
                "text/plain; charset=utf-8",
                "reach studio answers its own page only (Host and Origin must be 127.0.0.1 or localhost at its port)\n".into(),
            ));
            return;
        }
        let method = request.method().clone();
        let url = request.url().to_string();
        let path = url.split('?').next().unwrap_or("");
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (&method, parts.as_slice()) {
            (Method::Get, [""]) => {
                let mut r = respond(200, "text/html; charset=utf-8", INDEX.into());
                r.add_header(header(POLICY));
                let _ = request.respond(r);
            }
            (Method::Get, ["studio.js"]) => {
                let _ = request.respond(respond(200, "text/javascript", SCRIPT.into()));
            }
            (Method::Get, ["studio.css"]) => {
                let _ = request.respond(respond(200, "text/css", STYLE.into()));
            }
            (Method::Get, ["api", "start"]) => {
                let v = json!({
                    "text": self.text,
                    "file": self.file.as_ref().map(|f| f.display().to_string()),
                });
                let _ = request.respond(json_response(200, &v));
            }
            (Method::Post, ["api", "jobs"]) => {
                // A mistake in the puzzle file is an answer, not a failed
                // request (the page shows it at its line): 200 either way.
                let answer = match body_json(&mut request) {
                    Ok(v) => self.jobs.start(&v),
                    Err(e) => Err(e),
                };
                let _ = request.respond(json_response(200, &answer.unwrap_or_else(|e| e)));
            }
            (Method::Get, ["api", "jobs", id, "events"]) => {
                // Written straight to the socket, each event flushed as it
                // comes (a response body would sit in a chunk buffer).
                let id = id.to_string();
                if self.jobs.get(&id).is_none() {
                    let _ = request.respond(not_found());
                    return;
                }
                let mut out = request.into_writer();
                self.jobs.stream(&id, &mut out);
            }
            (Method::Get, ["api", "jobs", id, "page"]) => match self.jobs.page(id) {
                // The solution page carries its own policy (its script by
                // hash).
                Some(page) => {
                    let _ = request.respond(respond(200, "text/html; charset=utf-8", page));
                }
                None => {
                    let _ = request.respond(not_found());
                }
            },
            (Method::Post, ["api", "jobs", id, "cancel"]) => {
                self.jobs.cancel(id);
                let _ = request.respond(json_response(200, &json!({"cancelled": id})));
            }
            (Method::Post, ["api", "save"]) => {
                let answer = body_json(&mut request).and_then(|v| self.save(&v));
                let _ = request.respond(json_response(200, &answer.unwrap_or_else(|e| e)));
            }
            _ => {
                let _ = request.respond(not_found());
            }
        }
    }

    /// Writes the text to the studio's file, if it parses.
    fn save(&self, v: &Value) -> Result<Value, Value> {
        let text = v["text"].as_str().unwrap_or_default();
        let Some(file) = &self.file else {
            return Err(
                json!({"error": {"message": "the studio was started without a file: the page downloads the puzzle instead"}}),
            );
        };
        jobs::check(text, &file.display().to_string())?;
        super::output::write_output(file, text.as_bytes())
            .map_err(|e| json!({"error": {"message": e.to_string()}}))?;
        Ok(json!({"saved": file.display().to_string()}))
    }
}

fn not_found() -> Response<std::io::Cursor<Vec<u8>>> {
    respond(404, "text/plain; charset=utf-8", "not found\n".into())
}

/// The request's body as JSON, at most [`MAX_BODY`] bytes.
fn body_json(request: &mut Request) -> Result<Value, Value> {
    let mut body = String::new();
    request
        .as_reader()
        .take(MAX_BODY)
        .read_to_string(&mut body)
        .map_err(|e| json!({"error": {"message": format!("could not read the request: {e}")}}))?;
    serde_json::from_str(&body)
        .map_err(|e| json!({"error": {"message": format!("the request is not JSON: {e}")}}))
}
