//! API errors: an HTTP status and a message naming the problem, sent as `{"error", "status"}`.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// An error answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, for people.
    pub message: String,
    /// Seconds after which the request may be tried again (a `Retry-After` header).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with `status` and `message`, whose quoted parts (the client's input, most
    /// often) are cut to [`crate::util::QUOTE_MAX`] characters ([`crate::util::cut_quoted`]).
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: crate::util::cut_quoted(&message.into()),
            retry_after: None,
        }
    }
    /// 400.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    /// 403.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }
    /// 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }
    /// 409.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }
    /// 422.
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
    /// 429.
    pub fn too_many(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, message)
    }
    /// 503.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }
    /// 500, logged.
    pub fn internal(message: impl std::fmt::Display) -> ApiError {
        tracing::error!("internal error: {message}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error: {message}"),
        )
    }
    /// The JSON body.
    #[must_use]
    pub fn body(&self) -> serde_json::Value {
        serde_json::json!({ "error": self.message, "status": self.status.as_u16() })
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status.as_u16(), self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (self.status, axum::Json(self.body())).into_response();
        if let Some(secs) = self.retry_after {
            resp.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        resp
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> ApiError {
        ApiError::internal(format!("database: {}", crate::store::sqlite_words(&e)))
    }
}

/// A JSON body whose rejections (malformed JSON, wrong field types, too large, wrong content
/// type) become [`ApiError`]s with JSON bodies.
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        // A compressed body would only read as malformed JSON, and a mislabelled plain one
        // would be taken: the encoding is refused by name.
        if let Some(enc) = req.headers().get(axum::http::header::CONTENT_ENCODING) {
            let enc = String::from_utf8_lossy(enc.as_bytes()).trim().to_string();
            if !enc.eq_ignore_ascii_case("identity") {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!(
                        "Content-Encoding {} is not supported: send the body uncompressed",
                        crate::util::cut(&enc, crate::util::QUOTE_MAX)
                    ),
                ));
            }
        }
        // Checked as JSON first (content type, size, syntax) but kept as text, so that the
        // struct is read from the text itself: a field given twice is refused there, where a
        // parsed map would have kept the last value without a word.
        let raw = match axum::Json::<Box<RawValue>>::from_request(req, state).await {
            Ok(axum::Json(v)) => v,
            Err(rej) => return Err(json_rejection(&rej)),
        };
        read_object(raw.get())
            .map(Json)
            .map_err(|e| ApiError::bad_request(format!("bad request body: {e}")))
    }
}

/// Why JSON text did not read as the expected object ([`read_object`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// Not an object: what it is instead (`an array`, `a number`, `null`, …).
    NotObject(&'static str),
    /// An object, but a field is unknown, missing, given twice or of the wrong type: serde's
    /// message with the field's path.
    Fields(String),
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeError::NotObject(found) => write!(f, "expected a JSON object, found {found}"),
            ShapeError::Fields(e) => f.write_str(e),
        }
    }
}

/// Reads `T` from JSON text that is known to be well-formed, as every JSON body and WebSocket
/// message of this API is read: it must be an object (serde would also take an array for a
/// struct's fields in order), a field given twice is refused (a parsed map would have kept the
/// last value without a word), and the error names the field it is about (`opponent.level:
/// invalid type …`, `duplicate field `move``, `unknown field `ExpectedPly`` for structs that
/// deny unknown fields).
///
/// # Errors
/// [`ShapeError::NotObject`] for JSON that is not an object, [`ShapeError::Fields`] for an
/// object that does not read as `T`.
pub fn read_object<T: DeserializeOwned>(text: &str) -> Result<T, ShapeError> {
    if !text.trim_start().starts_with('{') {
        let found = match serde_json::from_str(text) {
            Ok(serde_json::Value::Bool(_)) => "a boolean",
            Ok(serde_json::Value::Number(_)) => "a number",
            Ok(serde_json::Value::String(_)) => "a string",
            Ok(serde_json::Value::Array(_)) => "an array",
            _ => "null",
        };
        return Err(ShapeError::NotObject(found));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        // `path: message`, where the path holds field names as sent, unquoted: cut it here.
        let (full, inner) = (e.to_string(), e.inner().to_string());
        let path = full
            .strip_suffix(&inner)
            .map(|p| p.trim_end_matches(": "))
            .filter(|p| !p.is_empty() && *p != ".");
        let inner = plain_serde_message(&inner);
        ShapeError::Fields(match path {
            Some(path) => format!(
                "{}: {inner}",
                crate::util::cut(path, crate::util::QUOTE_MAX)
            ),
            None => inner,
        })
    })
}

/// serde's message said as the rest of the API says things: without the position (` at line 1
/// column 41`: the field's name says where), and `expected X, found Y` rather than `invalid
/// type: Y, expected X`.
fn plain_serde_message(msg: &str) -> String {
    let msg = match msg.rfind(" at line ") {
        Some(i) if msg[i..].contains(" column ") => &msg[..i],
        _ => msg,
    };
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some((found, expected)) = msg
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once(", expected "))
        {
            return format!("expected {expected}, found {found}");
        }
    }
    msg.to_string()
}

/// The `serde_json` error under a rejection, if there is one.
fn serde_error(rej: &JsonRejection) -> Option<&serde_json::Error> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(rej);
    while let Some(e) = source {
        if let Some(e) = e.downcast_ref::<serde_json::Error>() {
            return Some(e);
        }
        // axum reads bodies through serde_path_to_error.
        if let Some(e) = e.downcast_ref::<serde_path_to_error::Error<serde_json::Error>>() {
            return Some(e.inner());
        }
        source = e.source();
    }
    None
}

/// `413 request body too large: at most 256 KiB (262144 bytes)`.
#[must_use]
pub fn body_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "request body too large: at most {} KiB ({} bytes)",
            crate::MAX_BODY / 1024,
            crate::MAX_BODY
        ),
    )
}

fn json_rejection(rej: &JsonRejection) -> ApiError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(rej);
    while let Some(e) = source {
        if let Some(timeout) = e.downcast_ref::<crate::conn::BodyTimeout>() {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!("request too slow: {timeout}"),
            );
        }
        source = e.source();
    }
    let status = rej.status();
    let message = match rej {
        JsonRejection::JsonDataError(e) => format!("bad request body: {}", e.body_text()),
        JsonRejection::JsonSyntaxError(e) => match serde_error(rej) {
            Some(se) if se.is_eof() && se.line() == 1 && se.column() == 0 => {
                "the request body is empty: expected a JSON object".to_string()
            }
            Some(se) => format!("malformed JSON: {se}"),
            None => format!("malformed JSON: {}", e.body_text()),
        },
        JsonRejection::MissingJsonContentType(_) => {
            "the request body must be JSON with Content-Type: application/json".to_string()
        }
        _ if status == StatusCode::PAYLOAD_TOO_LARGE => return body_too_large(),
        JsonRejection::BytesRejection(_) => return body_error(rej),
        other => other.body_text(),
    };
    // axum answers 422 for well-formed JSON of the wrong shape; for this API, 422 means an
    // illegal move, so a malformed request is always 400.
    let status = if status == StatusCode::UNPROCESSABLE_ENTITY {
        StatusCode::BAD_REQUEST
    } else {
        status
    };
    ApiError::new(status, message)
}

/// A body that could not be read, said in the API's words rather than the framework's
/// (`Failed to buffer the request body: error reading a body from connection`): `408 request
/// too slow: …` for one that did not arrive in time ([`crate::conn::BodyTimeout`]), `413` for
/// one over [`crate::MAX_BODY`], else 400. HTTP/1.1's body decoder fails with
/// `InvalidInput`/`InvalidData` only on chunked encoding, and with `UnexpectedEof` when the
/// connection ends before the body does.
pub fn body_error(error: &(dyn std::error::Error + 'static)) -> ApiError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(timeout) = e.downcast_ref::<crate::conn::BodyTimeout>() {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!("request too slow: {timeout}"),
            );
        }
        if e.is::<http_body_util::LengthLimitError>() {
            return body_too_large();
        }
        source = e.source();
    }
    body_read_error(error)
}

fn body_read_error(error: &(dyn std::error::Error + 'static)) -> ApiError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            let message = match io.kind() {
                std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData => {
                    "the request body is not valid chunked encoding (Transfer-Encoding: chunked)"
                }
                std::io::ErrorKind::UnexpectedEof => {
                    "the request body ended before it was complete"
                }
                _ => "the request body could not be read",
            };
            return ApiError::bad_request(message);
        }
        source = e.source();
    }
    ApiError::bad_request("the request body could not be read")
}

/// A path extractor with JSON errors.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(Path(v)),
            Err(rej) => {
                // The path as sent, not as seen under the router's `/api` nest.
                let path = parts
                    .extensions
                    .get::<axum::extract::OriginalUri>()
                    .map_or(parts.uri.path(), |o| o.0.path());
                Err(path_rejection(&rej, path))
            }
        }
    }
}

/// A path parameter that did not read, named as the API names it, with the path as sent (cut
/// to [`crate::util::QUOTE_MAX`] characters): `the game id in /api/games/%FF%FE is not valid
/// UTF-8`. axum would name its route parameter (`Invalid UTF-8 in `id``).
fn path_rejection(rej: &PathRejection, path: &str) -> ApiError {
    use axum::extract::path::ErrorKind;
    let name = |key: &str| match key {
        "id" => "game id".to_string(),
        "game" => "game name".to_string(),
        other => format!("'{other}'"),
    };
    let path = crate::util::cut(path, crate::util::QUOTE_MAX);
    if let PathRejection::FailedToDeserializePathParams(e) = rej {
        match e.kind() {
            ErrorKind::InvalidUtf8InPathParam { key } => {
                return ApiError::bad_request(format!(
                    "the {} in {path} is not valid UTF-8",
                    name(key)
                ));
            }
            ErrorKind::ParseErrorAtKey { key, .. } | ErrorKind::DeserializeError { key, .. } => {
                return ApiError::bad_request(format!("the {} in {path} does not read", name(key)));
            }
            _ => {}
        }
    }
    ApiError::new(rej.status(), rej.body_text())
}

/// A query-string extractor with JSON errors.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(Query(v)),
            Err(rej) => Err(query_rejection(&rej)),
        }
    }
}

fn query_rejection(rej: &QueryRejection) -> ApiError {
    let text = rej.body_text();
    let text = text
        .strip_prefix("Failed to deserialize query string: ")
        .unwrap_or(&text);
    ApiError::bad_request(format!("bad query string: {}", plain_serde_message(text)))
}

/// A query string read strictly: each parameter's value by name, for the names in `allowed`.
///
/// # Errors
/// 400 `unknown query parameter 'finishd': expected finished, limit or before` for a name not in
/// `allowed` (a misspelt parameter must not be ignored), `query parameter 'token' given twice`.
pub fn query(
    raw: Option<&str>,
    allowed: &[&str],
) -> Result<std::collections::BTreeMap<String, String>, ApiError> {
    let mut out = std::collections::BTreeMap::new();
    for (name, value) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if !allowed.contains(&name.as_ref()) {
            let expected = match allowed {
                [] => "this endpoint takes no query parameters".to_string(),
                [one] => format!("expected {one}"),
                [rest @ .., last] => format!("expected {} or {last}", rest.join(", ")),
            };
            return Err(ApiError::bad_request(format!(
                "unknown query parameter '{}': {expected}",
                crate::util::cut(&name, crate::util::QUOTE_MAX)
            )));
        }
        if out.insert(name.to_string(), value.to_string()).is_some() {
            return Err(ApiError::bad_request(format!(
                "query parameter '{name}' given twice"
            )));
        }
    }
    Ok(out)
}
