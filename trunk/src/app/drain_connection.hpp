// A placeholder protocol: holds the client and discards what it sends until
// it closes or stays idle too long. It lets listeners, limits and shutdown
// work before a real protocol is attached to a port.
#pragma once

#include "app/connection.hpp"

namespace srs {

class DrainConnection : public Connection {
  public:
    using Connection::Connection;

  protected:
    Error serve() override;
};

}  // namespace srs
