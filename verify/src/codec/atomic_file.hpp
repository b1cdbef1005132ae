// Outputs written whole or not at all: checked writes, unique temporary names, rename into
// place. Every file the verifier writes goes through these, and only over a regular file or
// nothing: a symbolic link, FIFO, device or folder at the target is refused, never followed.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rope2d::verify {

// What stands at path, a final symbolic link not followed: "" for nothing, else "a regular
// file", "a directory", "a symbolic link", "a FIFO", "a character device", "a block device" or
// "a socket".
std::string file_kind(const std::string& path);

// An output file's target: a regular file or nothing, else invalid_argument "<label> <path>:
// expected a regular file or nothing, found a character device". label names what gave the path
// (an option, "--trace"); empty: the path alone.
void require_output_file(const std::string& path, const std::string& label = "");

// An output folder: a directory or nothing (a symbolic link, even to a directory, is refused),
// else invalid_argument as require_output_file's. make_output_folder also creates it (with its
// parents) when nothing is there.
void require_output_folder(const std::string& dir, const std::string& label = "");
void make_output_folder(const std::string& dir, const std::string& label = "");

// An output folder the verifier fills (a report's build/ or solution/): require_output_folder,
// and everything in it, at any depth, a regular file or a directory; else invalid_argument
// naming the first other thing ("<label> <path>: expected a regular file or a directory, found a
// symbolic link"). A link inside would send a write to a file or folder named there.
void require_output_tree(const std::string& dir, const std::string& label = "");

// A relative output folder (one chosen by the verifier in the current folder): require_output_folder
// for it and for every folder on the way to it, so that no symbolic link among them (a checkout's
// `reports` linked elsewhere) sends the writes out of the current folder. An absolute path is
// the caller's own choice: not checked.
void require_local_output_folder(const std::string& dir, const std::string& label = "");

// Writes the concatenated parts to a fresh temporary file beside path (unique name), checks
// every write, fsync and close (a full disk is an error), then renames it into place; the target
// must pass require_output_file, before the write and again before the rename. `stop`,
// asked between pieces of 16 MiB, abandons the write (a signal arrived).
void write_file_atomic(const std::string& path, const std::vector<std::string_view>& parts,
                       const std::function<bool()>& stop = {});

// The regular file `from` (never through a final link; a FIFO or device is refused) written to
// `to` as write_file_atomic writes: whole or not at all, only over a regular file or nothing.
void copy_file_atomic(const std::string& from, const std::string& to);

// All of files ({path, text}) or none: each staged as write_file_atomic does, then renamed into
// place in the order given (put the file whose presence marks the whole last). Every target is
// checked (require_output_file) before anything is staged and again before the renames; when
// one fails, the staged ones are removed and those already renamed unlinked.
void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace rope2d::verify
