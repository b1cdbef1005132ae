// A file read out of a folder a submitter owns (a solution's definition.json and sources, a
// .cu submission's headers), opened once beneath that folder and read from that descriptor:
// no check of a path followed by an open of the same name, which a file swapped in between
// would escape. The one way the verifier reads such a file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace rope2d::verify {

struct FolderFile {
  enum class Found {
    file,         // a regular file beneath the folder: `text` holds it
    missing,      // no such file (or a component of the path is not a folder)
    outside,      // the path or a link on it leads out of the folder (an absolute link does)
    not_regular,  // a folder, FIFO, device or socket
    too_big,      // larger than the cap: `size` says how large
    unreadable,   // anything else: `error` says why
  };
  Found found = Found::missing;
  std::string text;
  std::uint64_t size = 0;
  std::string error;
};

// How links on the path are taken: followed while they stay beneath the folder (a relative
// link inside it to a file inside it is read), or none at all (any link: `outside`).
enum class FolderLinks { beneath, none };
// How the path is resolved: by the kernel (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_MAGICLINKS, Linux 5.6) where it has that call, else by `walk`; `walk`: one
// component at a time, each opened with O_NOFOLLOW from the folder above it and each link's
// text resolved the same way (for kernels without openat2, and for its tests).
enum class FolderResolve { best, walk };

// A submitter's folder, opened once (O_PATH): every file read out of it is opened beneath this
// one descriptor. A submission names several files (a solution, its sources and definition; a
// source and its headers): were the folder opened again by its path for each, a folder on that
// path swapped for a link between two reads would lead the later ones into another folder, one
// the submitter may not read. Copies share the descriptor.
class SubmitterFolder {
 public:
  explicit SubmitterFolder(const std::string& path);  // "" is the current folder
  const std::string& path() const { return path_; }
  bool opened() const { return fd_ != nullptr; }
  // `rel` (a relative path) beneath the folder, at most max_bytes read. Never throws for what
  // the folder holds; std::bad_alloc aside. A folder that could not be opened: unreadable.
  FolderFile read(const std::string& rel, std::uint64_t max_bytes, FolderLinks links = FolderLinks::beneath,
                  FolderResolve how = FolderResolve::best) const;

 private:
  std::string path_, error_;  // error_: why the folder could not be opened
  std::shared_ptr<const int> fd_;
};

// One file beneath `folder`, opened for this read alone: SubmitterFolder(folder).read(...).
FolderFile read_inside_folder(const std::string& folder, const std::string& rel, std::uint64_t max_bytes,
                              FolderLinks links = FolderLinks::beneath, FolderResolve how = FolderResolve::best);

// Whether `path` is `folder` or lies beneath it, both resolved as they stand now (links
// followed, a missing tail taken as written); false where either cannot be resolved.
bool lies_within(const std::filesystem::path& path, const std::filesystem::path& folder);

}  // namespace rope2d::verify
