//! Driving a stdio server (ours, the floor, or a Python one) with raw
//! newline-delimited JSON-RPC: sequential round trips, or a fixed number of
//! requests in flight.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command};
use std::time::{Duration, Instant};

use crate::{ECHO_TEXT, INITIALIZED, initialize_request, write_call_request};

use crate::Error;
use crate::procs::stop;
use crate::stats::Run;

/// A running stdio server and the driver's ends of its pipes.
#[derive(Debug)]
pub struct StdioPeer {
    child: Child,
    writer: BufWriter<ChildStdin>,
    reader: BufReader<ChildStdout>,
    next_id: u64,
    line: Vec<u8>,
    name: String,
}

impl StdioPeer {
    /// Starts the server (stdin and stdout piped).
    pub fn spawn(name: &str, mut command: Command) -> Result<Self, Error> {
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            stop(child, Duration::from_secs(1));
            return Err(format!("{name}: stdin and stdout must be piped").into());
        };
        Ok(Self {
            child,
            writer: BufWriter::with_capacity(64 * 1024, stdin),
            reader: BufReader::with_capacity(64 * 1024, stdout),
            next_id: 1,
            line: Vec::with_capacity(8 * 1024),
            name: name.to_string(),
        })
    }

    /// `initialize`, then `notifications/initialized`. Returns the
    /// initialize response.
    pub fn initialize(&mut self) -> Result<String, Error> {
        self.writer.write_all(initialize_request(0).as_bytes())?;
        self.writer.write_all(b"\n")?;
        self.writer.flush()?;
        self.read_line()?;
        let response = String::from_utf8_lossy(&self.line).into_owned();
        if !response.contains("\"result\"") {
            return Err(format!("{}: initialize failed: {response}", self.name).into());
        }
        self.writer.write_all(INITIALIZED.as_bytes())?;
        self.writer.write_all(b"\n")?;
        self.writer.flush()?;
        Ok(response)
    }

    fn queue_call(&mut self) -> Result<(), Error> {
        let id = self.next_id;
        self.next_id += 1;
        let mut request = Vec::with_capacity(160);
        write_call_request(&mut request, id);
        request.push(b'\n');
        self.writer.write_all(&request)?;
        Ok(())
    }

    fn read_line(&mut self) -> Result<(), Error> {
        self.line.clear();
        let n = self.reader.read_until(b'\n', &mut self.line)?;
        if n == 0 {
            return Err(format!("{}: stdout ended", self.name).into());
        }
        Ok(())
    }

    /// Reads one response and checks that it is a result.
    fn read_response(&mut self) -> Result<(), Error> {
        self.read_line()?;
        if !contains(&self.line, b"\"result\"") {
            return Err(format!(
                "{}: not a result: {}",
                self.name,
                String::from_utf8_lossy(&self.line)
            )
            .into());
        }
        Ok(())
    }

    /// One call whose response is checked in full (the echo came back).
    pub fn verify_call(&mut self) -> Result<(), Error> {
        self.queue_call()?;
        self.writer.flush()?;
        self.read_response()?;
        let response: serde_json::Value = serde_json::from_slice(&self.line)?;
        if response["result"]["content"][0]["text"] != ECHO_TEXT {
            return Err(format!("{}: wrong echo: {response}", self.name).into());
        }
        Ok(())
    }

    /// Sequential round trips for `duration`, each latency recorded.
    pub fn sequential(&mut self, duration: Duration) -> Result<Run, Error> {
        let mut run = Run {
            latencies_ns: Vec::with_capacity(64 * 1024),
            ..Run::default()
        };
        let start = Instant::now();
        let deadline = start + duration;
        loop {
            let sent = Instant::now();
            if sent >= deadline {
                break;
            }
            self.queue_call()?;
            self.writer.flush()?;
            self.read_response()?;
            let latency = sent.elapsed();
            run.latencies_ns.push(latency.as_nanos() as u64);
            run.count += 1;
        }
        run.elapsed = start.elapsed();
        Ok(run)
    }

    /// Keeps `depth` requests in flight for `duration`, then drains.
    pub fn pipelined(&mut self, depth: usize, duration: Duration) -> Result<Run, Error> {
        let deadline = Instant::now() + duration;
        self.pipelined_while(depth, |_| Instant::now() < deadline)
    }

    /// Sends exactly `count` requests, `depth` at most in flight, and reads
    /// every response.
    pub fn pipelined_count(&mut self, depth: usize, count: u64) -> Result<Run, Error> {
        self.pipelined_while(depth, |sent| sent < count)
    }

    /// Keeps up to `depth` requests in flight while `more(sent so far)`
    /// holds, then drains.
    fn pipelined_while(
        &mut self,
        depth: usize,
        mut more: impl FnMut(u64) -> bool,
    ) -> Result<Run, Error> {
        let mut run = Run::default();
        let start = Instant::now();
        let mut sent: u64 = 0;
        let mut in_flight = 0;
        while in_flight < depth && more(sent) {
            self.queue_call()?;
            sent += 1;
            in_flight += 1;
        }
        self.writer.flush()?;
        let mut sending = true;
        while in_flight > 0 {
            self.read_response()?;
            in_flight -= 1;
            run.count += 1;
            if sending {
                if more(sent) {
                    self.queue_call()?;
                    sent += 1;
                    in_flight += 1;
                } else {
                    sending = false;
                }
            }
            // Send what is queued before waiting for more responses.
            if self.reader.buffer().is_empty() {
                self.writer.flush()?;
            }
        }
        run.elapsed = start.elapsed();
        Ok(run)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server (stdin closed, then killed by PID if it lingers).
    pub fn stop(self) {
        let Self { child, writer, .. } = self;
        drop(writer);
        stop(child, Duration::from_secs(2));
    }
}

/// Whether `haystack` contains `needle`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
