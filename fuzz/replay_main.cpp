// main() for a fuzz target outside libFuzzer (any compiler): runs every file of the corpus folders
// or files it is given, then --random=N random inputs (seeded; --seed=S replays a run), so that the
// seed corpora and the harnesses' own checks run in the ordinary test suite.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

void RunFile(const std::filesystem::path &path) {
  std::ifstream file(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char **argv) {
  long random_inputs = 0;
  uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  size_t files = 0;
  for (int a = 1; a < argc; ++a) {
    const std::string argument = argv[a];
    if (argument.rfind("--random=", 0) == 0) {
      random_inputs = std::strtol(argument.c_str() + 9, nullptr, 10);
    } else if (argument.rfind("--seed=", 0) == 0) {
      seed = std::strtoull(argument.c_str() + 7, nullptr, 10);
    } else if (std::filesystem::is_directory(argument)) {
      for (const auto &entry : std::filesystem::directory_iterator(argument)) {
        RunFile(entry.path());
        ++files;
      }
    } else {
      RunFile(argument);
      ++files;
    }
  }
  std::printf("replayed %zu corpus files; %ld random inputs with --seed=%llu\n", files, random_inputs,
              static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  std::mt19937_64 random(seed);
  std::vector<uint8_t> input;
  for (long i = 0; i < random_inputs; ++i) {
    input.resize(random() % 600);
    for (uint8_t &byte : input) byte = static_cast<uint8_t>(random());
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("all inputs passed\n");
  return 0;
}
