// read_inside_folder and SubmitterFolder (codec/folder_file.hpp): what a submitter's folder may
// hand the verifier, each case under both resolvers (the kernel's openat2 and the O_NOFOLLOW
// walk), which must agree, and with links followed beneath the folder or refused altogether.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "codec/folder_file.hpp"

using namespace rope2d::verify;
namespace fs = std::filesystem;

namespace {

using Found = FolderFile::Found;

// dir/: file.txt, sub/inner.txt and links to them and out of dir; outside/: secret.txt.
// `outside` begins with dir's name: a check by string prefix would let it through.
struct Folder {
  fs::path dir, outside;
  Folder() {
    const fs::path base = fs::temp_directory_path() / ("rope2d_folder_file_" + std::to_string(::getpid()));
    fs::remove_all(base);
    dir = base / "sol";
    outside = base / "sol-out";
    fs::create_directories(dir / "sub");
    fs::create_directories(outside);
    std::ofstream(dir / "file.txt") << "inside";
    std::ofstream(dir / "sub" / "inner.txt") << "inner";
    std::ofstream(outside / "secret.txt") << "secret";
    fs::create_symlink("sub/inner.txt", dir / "link_in");                 // relative, inside
    fs::create_symlink("../file.txt", dir / "sub" / "up_in");             // "..", still inside
    fs::create_symlink(dir / "sub" / "inner.txt", dir / "absolute_in");   // absolute, to a file inside
    fs::create_symlink(outside / "secret.txt", dir / "link_out");         // absolute, out
    fs::create_symlink("../sol-out/secret.txt", dir / "relative_out");    // relative, out
    fs::create_symlink(outside, dir / "folder_out");                      // a folder out
    fs::create_symlink("sub", dir / "folder_in");                         // a folder inside
    fs::create_symlink("loop", dir / "loop");
    fs::create_symlink("/proc/self/root/etc/hostname", dir / "magic");
    ::mkfifo((dir / "fifo").c_str(), 0600);
  }
  ~Folder() { fs::remove_all(dir.parent_path()); }
  FolderFile read(const std::string& rel, FolderResolve how, FolderLinks links = FolderLinks::beneath, std::uint64_t cap = 1 << 20) const {
    return read_inside_folder(dir.string(), rel, cap, links, how);
  }
};

const FolderResolve both[] = {FolderResolve::best, FolderResolve::walk};

std::string said(FolderResolve how) { return how == FolderResolve::best ? "openat2" : "walk"; }

}  // namespace

TEST(FolderFile, ARegularFileInsideIsRead) {
  const Folder f;
  for (FolderResolve how : both) {
    const FolderFile a = f.read("file.txt", how), b = f.read("sub/inner.txt", how), c = f.read("./sub//inner.txt", how);
    EXPECT_EQ(a.found, Found::file) << said(how);
    EXPECT_EQ(a.text, "inside") << said(how);
    EXPECT_EQ(b.text, "inner") << said(how);
    EXPECT_EQ(c.text, "inner") << said(how);
    EXPECT_EQ(f.read("sub/../file.txt", how).text, "inside") << said(how);
  }
}

TEST(FolderFile, ALinkThatStaysInsideIsFollowedUnlessLinksAreRefused) {
  const Folder f;
  for (FolderResolve how : both) {
    for (const char* rel : {"link_in", "folder_in/inner.txt"}) {
      EXPECT_EQ(f.read(rel, how).text, "inner") << said(how) << " " << rel;
      EXPECT_EQ(f.read(rel, how, FolderLinks::none).found, Found::outside) << said(how) << " " << rel;
    }
    EXPECT_EQ(f.read("sub/up_in", how).text, "inside") << said(how);
    // An absolute link is refused even where it names a file inside (RESOLVE_BENEATH's rule):
    // the folder is judged by what it holds, not by where it happens to be.
    EXPECT_EQ(f.read("absolute_in", how).found, Found::outside) << said(how);
  }
}

TEST(FolderFile, NothingOutOfTheFolderIsRead) {
  const Folder f;
  for (FolderResolve how : both)
    for (FolderLinks links : {FolderLinks::beneath, FolderLinks::none})
      for (const char* rel : {"link_out", "relative_out", "folder_out/secret.txt", "../sol-out/secret.txt", "sub/../../sol-out/secret.txt",
                              "/etc/hostname", "magic"}) {
        const FolderFile r = f.read(rel, how, links);
        EXPECT_EQ(r.found, Found::outside) << said(how) << " " << rel;
        EXPECT_TRUE(r.text.empty()) << said(how) << " " << rel;
      }
}

TEST(FolderFile, WhatIsNotAFileSaysWhy) {
  const Folder f;
  for (FolderResolve how : both) {
    EXPECT_EQ(f.read("nothere.txt", how).found, Found::missing) << said(how);
    EXPECT_EQ(f.read("file.txt/x", how).found, Found::missing) << said(how);
    EXPECT_EQ(f.read("", how).found, Found::missing) << said(how);
    EXPECT_EQ(f.read("sub", how).found, Found::not_regular) << said(how);
    EXPECT_EQ(f.read(".", how).found, Found::not_regular) << said(how);
    EXPECT_EQ(f.read("fifo", how).found, Found::not_regular) << said(how);  // and no wait for a writer
    EXPECT_EQ(f.read("loop", how).found, Found::unreadable) << said(how);
    const FolderFile big = f.read("file.txt", how, FolderLinks::beneath, 3);
    EXPECT_EQ(big.found, Found::too_big) << said(how);
    EXPECT_EQ(big.size, 6u) << said(how);
    EXPECT_TRUE(big.text.empty()) << said(how);
  }
  EXPECT_EQ(read_inside_folder("/nonexistent-rope2d-folder", "x", 10).found, Found::unreadable);
}

// A folder opened once keeps its descriptor: the folder's path swapped for a link to another
// folder (which holds a file of the same name) after the first read moves none of the later
// reads there, under either resolver, and the copies of the folder share the one descriptor.
TEST(FolderFile, AFolderSwappedForALinkAfterItWasOpenedIsNotFollowed) {
  const Folder f;
  std::ofstream(f.outside / "file.txt") << "secret";
  const SubmitterFolder opened(f.dir.string());
  ASSERT_TRUE(opened.opened());
  EXPECT_EQ(opened.read("file.txt", 1 << 20).text, "inside");
  const fs::path moved = f.dir.parent_path() / "sol-moved";
  fs::rename(f.dir, moved);
  fs::create_symlink(f.outside, f.dir);  // the same path now leads to the other folder
  const SubmitterFolder copy = opened;
  for (FolderResolve how : both) {
    EXPECT_EQ(opened.read("file.txt", 1 << 20, FolderLinks::beneath, how).text, "inside") << said(how);
    EXPECT_EQ(copy.read("sub/inner.txt", 1 << 20, FolderLinks::none, how).text, "inner") << said(how);
  }
  // Control: the folder opened again by its path is the other one now.
  EXPECT_EQ(read_inside_folder(f.dir.string(), "file.txt", 1 << 20).text, "secret");
  fs::remove(f.dir);
  fs::rename(moved, f.dir);
  const SubmitterFolder none("/nonexistent-rope2d-folder");
  EXPECT_FALSE(none.opened());
  EXPECT_EQ(none.read("x", 10).found, Found::unreadable);
  EXPECT_NE(none.read("x", 10).error.find("/nonexistent-rope2d-folder"), std::string::npos);
}
