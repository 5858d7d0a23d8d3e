// Static files under http_server.dir: MIME types, index.html for
// directories, single Range requests. No path leaves the root: the parser
// already refuses ".." that would climb out, and symlinks are resolved and
// checked against the root here.
#pragma once

#include <string>

#include "app/http_conn.hpp"

namespace srs {

class HttpStaticHandler : public HttpHandler {
  public:
    explicit HttpStaticHandler(std::string root);
    bool match(const HttpRequest& req) const override;
    Error serve(const HttpRequest& req, HttpResponse* res) override;

  private:
    std::string root_;
};

}  // namespace srs
