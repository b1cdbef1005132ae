// junit_lint FILE [ELEMENT...]: exits 0 when FILE is well-formed XML (pugixml, plus UTF-8 and
// XML 1.0 characters) with a JUnit root, and, for each ELEMENT given (alternatives joined by
// '|': failure|error), some <testcase> holds one;
// else prints what is wrong and exits 1. For the shell tests of junit.xml files.
#include <fstream>
#include <iostream>
#include <pugixml.hpp>
#include <sstream>

#include "xml_check.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: junit_lint FILE [ELEMENT...]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot be read\n";
    return 1;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (const std::string p = rope2d::verify::test::xml_problem(text); !p.empty()) {
    std::cerr << argv[1] << ": " << p << "\n";
    return 1;
  }
  pugi::xml_document doc;
  const pugi::xml_parse_result res = doc.load_buffer(text.data(), text.size());
  if (!res) {
    std::cerr << argv[1] << ": not XML: " << res.description() << " at byte " << res.offset << "\n";
    return 1;
  }
  const std::string root = doc.document_element().name();
  if (root != "testsuite" && root != "testsuites") {
    std::cerr << argv[1] << ": root element: expected testsuite or testsuites, found " << root << "\n";
    return 1;
  }
  int rc = 0;
  for (int k = 2; k < argc; ++k) {
    std::string query, alt;
    for (std::istringstream alts(argv[k]); std::getline(alts, alt, '|');) query += (query.empty() ? "" : " | ") + ("//testcase/" + alt);
    if (doc.select_nodes(query.c_str()).empty()) {
      std::cerr << argv[1] << ": no testcase holds a <" << argv[k] << ">\n";
      rc = 1;
    }
  }
  return rc;
}
