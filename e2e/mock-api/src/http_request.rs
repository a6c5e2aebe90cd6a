//! Reads one HTTP/1.1 request from a keep-alive connection (Content-Length or chunked body).

use std::io::{self, BufRead};

/// Largest body we accept; the client's requests are far below this.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path with query, as sent (`/v1/messages?beta=true`).
    pub target: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The decoded body.
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The path without the query string.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// Whether the client asked to close the connection after this request.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }

    /// Reads the next request; `Ok(None)` when the peer closed the connection cleanly.
    pub fn read_from(reader: &mut impl BufRead) -> io::Result<Option<HttpRequest>> {
        let mut line = String::new();
        // Tolerate stray blank lines between keep-alive requests.
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(None);
            }
            if !line.trim().is_empty() {
                break;
            }
        }
        let mut parts = line.split_whitespace();
        let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
            return Err(invalid(format!("bad request line {:?}", line.trim_end())));
        };
        let (method, target) = (method.to_owned(), target.to_owned());
        let mut headers = Vec::new();
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Err(invalid("connection closed inside the headers".to_owned()));
            }
            let trimmed = line.trim_end_matches(['\r', '\n']);
            if trimmed.is_empty() {
                break;
            }
            if let Some((name, value)) = trimmed.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
            }
        }
        let mut request = HttpRequest {
            method,
            target,
            headers,
            body: Vec::new(),
        };
        let chunked = request
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        if chunked {
            request.body = read_chunked(reader)?;
        } else if let Some(length) = request.header("content-length") {
            let length: usize = length
                .parse()
                .map_err(|_| invalid(format!("bad content-length {length:?}")))?;
            if length > MAX_BODY {
                return Err(invalid(format!("body of {length} bytes is too large")));
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body)?;
            request.body = body;
        }
        Ok(Some(request))
    }
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size_text = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| invalid(format!("bad chunk size {size_text:?}")))?;
        if size == 0 {
            // Trailers end with an empty line.
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return Err(invalid("chunked body is too large".to_owned()));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?;
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_two_keep_alive_requests_with_length_and_chunked_bodies() {
        let wire = "POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello\
                    POST /v1/messages/count_tokens HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
        let mut reader = io::BufReader::new(wire.as_bytes());
        let first = HttpRequest::read_from(&mut reader).unwrap().unwrap();
        assert_eq!(first.path(), "/v1/messages");
        assert_eq!(first.target, "/v1/messages?beta=true");
        assert_eq!(first.body, b"hello");
        assert!(!first.wants_close());
        let second = HttpRequest::read_from(&mut reader).unwrap().unwrap();
        assert_eq!(second.path(), "/v1/messages/count_tokens");
        assert_eq!(second.body, b"abcde");
        assert!(second.wants_close());
        assert!(HttpRequest::read_from(&mut reader).unwrap().is_none());
    }

    #[test]
    fn rejects_a_garbled_chunk_size() {
        let wire = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        let mut reader = io::BufReader::new(wire.as_bytes());
        let err = HttpRequest::read_from(&mut reader).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
