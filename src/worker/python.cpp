#include <Python.h>  // before any other header, as CPython asks

#include "worker/python.hpp"

#include <stdexcept>

namespace headroom::worker {

void start_python(const std::string& executable) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  // Python computes sys.prefix from the program name; a virtual environment is found through the
  // pyvenv.cfg next to its executable.
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, executable.c_str());
  if (!PyStatus_Exception(status)) status = PyConfig_SetBytesString(&config, &config.executable, executable.c_str());
  config.install_signal_handlers = 0;  // SIGINT and SIGTERM end the worker; the parent decides
  config.write_bytecode = 0;
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status))
    throw std::runtime_error(std::string("cannot start Python for ") + executable + ": " +
                             (status.err_msg ? status.err_msg : "unknown error"));
}

}  // namespace headroom::worker
