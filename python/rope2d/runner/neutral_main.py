# The neutral host's main program. The relay (rope2d.runner) starts "python3 -" in the solution's
# folder and writes this program on its standard input, after a first line "CONFIG_FD = n": the
# pipe that brings the runner's inputs and code. Like a user's program read from standard input
# (its frames are "<stdin>", sys.argv is ["-"]), it takes the solution's folder as sys.path[0],
# reads its inputs once and closes them, points its standard input at /dev/null, loads the
# runner's modules from the sources it was given under the name "<stdin>" (registered under their
# package names only while they load, so that they import each other as in the package; no module
# of the runner stays in sys.modules), and makes every call into the solution, the import
# included, from its own main(). See docs/python-solutions.md, "The neutral host". Comments, not a
# docstring: the solution can read __main__'s. Never imported: the relay sends it as text.
import os
import sys


def _setup():
    global CONFIG_FD, __file__
    fd = CONFIG_FD
    del CONFIG_FD
    del __file__  # "<stdin>": a process the solution starts by multiprocessing's spawn would look for it
    if sys.path and sys.path[0] == "":  # the working folder, as an absolute path as for a script
        sys.path[0] = os.getcwd()
    else:  # started with -P or PYTHONSAFEPATH
        sys.path.insert(0, os.getcwd())
    sys.path_importer_cache.pop("", None)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    data = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    import json
    import types
    config = json.loads(data)
    os.set_inheritable(config["socket_fd"], False)  # not passed on to compilers and workers the solution starts
    names, module = [], None
    for name, source in config.pop("modules"):
        module = types.ModuleType("__main__")
        parts, parent = name.split("."), None
        for k in range(len(parts)):  # the module and its packages, for the imports of those loaded after it
            full = ".".join(parts[:k + 1])
            if full not in sys.modules:
                sys.modules[full] = module if full == name else types.ModuleType(full)
                names.append(full)
            if parent is not None:
                setattr(parent, parts[k], sys.modules[full])
            parent = sys.modules[full]
        exec(compile(source, "<stdin>", "exec", dont_inherit=True), module.__dict__)
    for name in names:
        del sys.modules[name]
    return module.steps(config)


def main():
    tasks = _setup()
    call = None
    while True:
        try:
            call = tasks.send(None)
        except StopIteration:
            return
        try:
            call[2] = call[0](*call[1])
        except Exception as e:
            call[3] = e
        call = None


if __name__ == "__main__":
    main()
