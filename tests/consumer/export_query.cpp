// A consumer's runtime finds the kernel export that `cmake --install` put
// beside the installed library, so that its served kernels load without NVRTC:
// the runtime's answer must name a folder under the install prefix (argv[1])
// holding at least one kernel. Prints the answer; exits 1, saying why, if not.
#include <exactune/runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: export_query <install prefix>\n");
    return 2;
  }
  const std::string prefix = argv[1];
  char text[4096];
  const int status = exactune_runtime_export(text, sizeof text);
  if (status != EXACTUNE_OK) {
    std::printf("no kernel export found: %s: %s\n", exactune_status_name(status), exactune_runtime_last_error());
    return 1;
  }
  std::printf("kernel export: %s", text);
  // "<folder>\t<kernels>\t<compiler>\t<command>"
  const std::string line = text;
  const std::string folder = line.substr(0, line.find('\t'));
  const long kernels = std::strtol(line.c_str() + folder.size() + 1, nullptr, 10);
  if (folder.compare(0, prefix.size(), prefix) != 0) {
    std::printf("the export found is %s, not the one installed under %s\n", folder.c_str(), prefix.c_str());
    return 1;
  }
  if (kernels < 1) {
    std::printf("the installed export holds no kernel\n");
    return 1;
  }
  return 0;
}
