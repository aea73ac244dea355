//! A small HTTP/1.1 server for the recorder tests: real recorders (vcrpy, Ruby VCR, go-vcr,
//! Polly, nock) record what it answers. It listens on `127.0.0.1:0`, answers each request
//! from a fixed table of routes (method and request target, query included, exactly as
//! sent; or any [`Answer`], which may look at the body: a fake LLM API answers one path
//! differently per conversation), one request per connection (`Connection: close`), with a
//! `Content-Length` and a `Date`, and keeps every request it received so a test can see
//! what left the client.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What the server answers to one route.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// Headers besides `Content-Length`, `Date` and `Connection`, which the server adds (a
    /// `Date` only when the reply names none: a scenario recorded twice as the very same
    /// exchanges fixes it).
    pub headers: Vec<(String, String)>,
    /// The body as sent on the wire (compressed, when a `Content-Encoding` says so).
    pub body: Vec<u8>,
}

/// One route: `GET /v1/models?page=2` answered by `reply`.
#[derive(Debug, Clone)]
pub struct Route {
    pub method: String,
    /// The request target: path and query, byte for byte as the client sends it.
    pub target: String,
    pub reply: Reply,
}

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// How a server answers a request: a reply, or `None` for a 404 that names what was asked.
pub type Answer = dyn Fn(&Received) -> Option<Reply> + Send + Sync;

/// A running server; dropping it (or [`Server::stop`]) closes the port.
pub struct Server {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    received: Arc<Mutex<Vec<Received>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts answering `routes` on a free port of 127.0.0.1.
    pub fn start(routes: Vec<Route>) -> Server {
        Server::start_with(Arc::new(move |request: &Received| {
            routes
                .iter()
                .find(|r| r.method == request.method && r.target == request.target)
                .map(|r| r.reply.clone())
        }))
    }

    /// Starts answering with `answer` on a free port of 127.0.0.1.
    pub fn start_with(answer: Arc<Answer>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let stopping = Arc::new(AtomicBool::new(false));
        let received = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (stopping, received) = (stopping.clone(), received.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (answer, received) = (answer.clone(), received.clone());
                    std::thread::spawn(move || serve(stream, &*answer, &received));
                }
            })
        };
        Server {
            addr,
            stopping,
            received,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops listening; returns every request received, in arrival order.
    pub fn stop(mut self) -> Vec<Received> {
        self.shut_down();
        std::mem::take(&mut *self.received.lock().unwrap())
    }

    fn shut_down(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.stopping.store(true, Ordering::SeqCst);
            // Wakes the blocking `accept`, which then sees the flag.
            let _ = TcpStream::connect(self.addr);
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Reads one request from `stream`, records it, writes the answer (or a 404 that names what
/// was asked, or a 400 for a request it cannot read).
fn serve(stream: TcpStream, answer: &Answer, received: &Mutex<Vec<Received>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let reply = match read_request(&mut reader) {
        Ok(Some(request)) => {
            let reply = match answer(&request) {
                Some(reply) => reply,
                None => text_reply(
                    404,
                    &format!("no route for {} {}\n", request.method, request.target),
                ),
            };
            received.lock().unwrap().push(request);
            reply
        }
        // The connection that wakes `accept` on shutdown, or a client that gave up.
        Ok(None) => return,
        Err(message) => text_reply(400, &format!("{message}\n")),
    };
    let _ = write_reply(stream, &reply);
}

fn text_reply(status: u16, text: &str) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), "text/plain".into())],
        body: text.as_bytes().to_vec(),
    }
}

/// The request line, the headers, and a body framed by `Content-Length` or chunked.
fn read_request(reader: &mut impl BufRead) -> Result<Option<Received>, String> {
    let mut line = String::new();
    if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(_version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("bad request line {line:?}"));
    };
    let (method, target) = (method.to_owned(), target.to_owned());
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| format!("bad header line {header:?}"))?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let mut request = Received {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    if request
        .header("Transfer-Encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        request.body = read_chunked(reader)?;
    } else if let Some(length) = request.header("Content-Length") {
        let length: usize = length
            .parse()
            .map_err(|_| format!("bad Content-Length {length:?}"))?;
        let mut body = vec![0; length];
        reader.read_exact(&mut body).map_err(|e| e.to_string())?;
        request.body = body;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut impl BufRead) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let size = line.trim().split(';').next().unwrap_or("");
        let size =
            usize::from_str_radix(size, 16).map_err(|_| format!("bad chunk size {line:?}"))?;
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk).map_err(|e| e.to_string())?;
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..size]);
    }
}

fn write_reply(mut stream: TcpStream, reply: &Reply) -> std::io::Result<()> {
    let reason = match reply.status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        _ => "Status",
    };
    let mut head = format!("HTTP/1.1 {} {reason}\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", reply.body.len()));
    if !reply
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("date"))
    {
        head.push_str(&format!("Date: {}\r\n", http_date(SystemTime::now())));
    }
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(&reply.body)?;
    stream.flush()
}

/// `Thu, 03 Dec 2026 15:19:38 GMT` (RFC 9110 IMF-fixdate).
pub fn http_date(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[month as usize - 1],
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// `2026-12-03T15:19:38Z`.
pub fn iso_date_time(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Year, month and day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
