#pragma once
// One HTTP POST, through libcurl (TLS with the system's certificates, HTTP/1.1 and HTTP/2,
// proxies from the usual environment variables). No curl type crosses this header.
#include <optional>
#include <string>
#include <vector>

namespace headroom::generate {

struct http_request {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  double timeout_s = 600;  // the whole exchange
  double connect_timeout_s = 30;
};

// Why no HTTP answer came (or came whole).
enum class transport_failure {
  none,  // the exchange completed; see status
  unreachable,  // name not resolved, connection refused, TLS handshake failed
  timeout,  // timeout_s passed
  cut_short,  // the connection ended before the answer did
  other,
};

struct http_response {
  transport_failure failure = transport_failure::none;
  std::string error;  // the transport's message when failure != none
  long status = 0;  // 0 when no status line came
  std::string body;
  std::optional<double> retry_after_s;  // a Retry-After header, in seconds (a date becomes the wait until it)
};

// Sets libcurl up for the process; call once before any thread posts (the CLI does).
void http_global_init();

// Blocks until the answer is whole, the timeout passes or the transfer fails; never throws for a
// failure of the exchange (that is in the response).
http_response http_post(const http_request& request);

// "Retry-After: 3" -> 3; an HTTP date -> the seconds until it (0 when past); nullopt when neither.
std::optional<double> parse_retry_after(const std::string& value, double now_epoch_s);

}  // namespace headroom::generate
