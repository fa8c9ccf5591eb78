// Where a store is: what `--db` accepts, and what messages show of it.
#include <gtest/gtest.h>

#include "headroom/store/connection.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;

TEST(StoreLocation, AUrlIsPostgresqlAndAnythingElseAFile) {
  EXPECT_EQ(store::location::parse("postgresql://eval@db-host:5432/kb").kind, store::backend::postgresql);
  EXPECT_EQ(store::location::parse("postgres://db-host/kb").kind, store::backend::postgresql);
  EXPECT_EQ(store::location::parse("results.sqlite").kind, store::backend::sqlite);
  EXPECT_EQ(store::location::parse("runs/postgresql:/x.sqlite").kind, store::backend::sqlite);
}

TEST(StoreLocation, MessagesNeverShowAPassword) {
  EXPECT_EQ(store::location::parse("postgresql://eval:s3cret@db-host:5432/kb").display(),
            "postgresql://eval:***@db-host:5432/kb");
  EXPECT_EQ(store::location::parse("postgresql://eval@db-host/kb?sslmode=require&password=s3cret").display(),
            "postgresql://eval@db-host/kb?sslmode=require&password=***");
  EXPECT_EQ(store::location::parse("postgresql://eval@db-host/kb").display(), "postgresql://eval@db-host/kb");
  EXPECT_EQ(store::location::parse("results.sqlite").display(), "results.sqlite");
}

TEST(StoreLocation, AnUnreachableServerIsAnInputErrorNamingIt) {
  try {
    // Port 1 on loopback: nothing listens there.
    store::connection::open(store::location::parse("postgresql://eval:s3cret@127.0.0.1:1/kb?connect_timeout=2"),
                            store::connection::access::read_only);
    FAIL() << "connected to nothing";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot connect to postgresql://eval:***@127.0.0.1:1/kb"), std::string::npos) << what;
    EXPECT_EQ(what.find("s3cret"), std::string::npos) << what;
  }
}
