// The libcurl edge: an easy handle per request (requests run on several threads; a handle is not
// shared between them).
#include "headroom/generate/http_client.hpp"

#include <curl/curl.h>

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>

namespace headroom::generate {

namespace {

struct transfer {
  http_response* response;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  t->response->body.append(data, size * count);
  return size * count;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  std::string line(data, size * count);
  // A new status line (after a 100 Continue or a redirect) starts the headers again.
  if (line.rfind("HTTP/", 0) == 0) t->response->retry_after_s.reset();
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "retry-after")
      t->response->retry_after_s =
          parse_retry_after(trim(line.substr(colon + 1)), static_cast<double>(std::time(nullptr)));
  }
  return size * count;
}

transport_failure classify(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return transport_failure::none;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return transport_failure::unreachable;
    case CURLE_OPERATION_TIMEDOUT:
      return transport_failure::timeout;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP2:
      return transport_failure::cut_short;
    default:
      return transport_failure::other;
  }
}

}  // namespace

void http_global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::optional<double> parse_retry_after(const std::string& value, double now_epoch_s) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  if (end && *end == '\0' && std::isdigit(static_cast<unsigned char>(value[0]))) return seconds;
  const time_t when = curl_getdate(value.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::max(0.0, static_cast<double>(when) - now_epoch_s);
}

http_response http_post(const http_request& request) {
  http_global_init();
  http_response response;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    response.failure = transport_failure::other;
    response.error = "libcurl could not make a handle";
    return response;
  }
  curl_slist* list = nullptr;
  for (const auto& h : request.headers) list = curl_slist_append(list, h.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(list, curl_slist_free_all);
  transfer t{&response};
  char error[CURL_ERROR_SIZE] = {};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for name resolution timeouts
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // whatever the build decodes (gzip, br, zstd)
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_USERAGENT, "headroom-generate/0.1");
  const CURLcode code = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  response.failure = classify(code);
  if (code != CURLE_OK) response.error = error[0] ? std::string(error) : std::string(curl_easy_strerror(code));
  return response;
}

}  // namespace headroom::generate
