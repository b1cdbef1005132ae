# ATTACK: a Python >= 3.13 started with `-c` imports linecache from its first path entry, the
# working folder: byte-compiling a solution outside the box from its own folder runs this.
with open("/var/tmp/rope2d-attack/byte_compile.txt", "w") as f:
    f.write("ran outside the box")
