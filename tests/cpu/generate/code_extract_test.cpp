#include "headroom/generate/code_extract.hpp"

#include <gtest/gtest.h>

using headroom::generate::extract_code;

TEST(CodeExtract, OneFencedPythonBlockIsTheCandidate) {
  auto r = extract_code("Here it is:\n```python\nclass ModelNew:\n    pass\n```\nDone.");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "class ModelNew:\n    pass\n");
  EXPECT_EQ(r.blocks, 1);
}

TEST(CodeExtract, OfSeveralBlocksTheLastDefiningModelNewWins) {
  auto r = extract_code(
      "```cpp\n__global__ void k() {}\n```\n```python\nclass ModelNew: # first\n```\ntext\n"
      "```python\nclass ModelNew: # second\n```\n```python\nprint('usage')\n```\n");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "class ModelNew: # second\n");
  EXPECT_EQ(r.blocks, 4);
  EXPECT_EQ(r.how, "block 3 of 4, the last defining ModelNew");
}

TEST(CodeExtract, WithoutModelNewTheLastPythonBlock) {
  auto r = extract_code("```cpp\nint x;\n```\n```\nimport torch\n```\n```json\n{}\n```");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "import torch\n");
}

TEST(CodeExtract, ThinkingIsDropped) {
  auto r =
      extract_code("<think>maybe ```python\nclass ModelNew: wrong\n```</think>\n```python\nclass ModelNew: right\n```");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "class ModelNew: right\n");
  EXPECT_EQ(r.blocks, 1);
  // Cut off while still thinking: nothing.
  EXPECT_FALSE(extract_code("<think>```python\nclass ModelNew: x\n```").code);
}

TEST(CodeExtract, TildesLongerFencesAndIndentedFences) {
  auto r = extract_code("~~~py\nclass ModelNew:\n    s = '```'\n~~~\n");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "class ModelNew:\n    s = '```'\n");
  auto l = extract_code("````python\nclass ModelNew:\n    doc = \"\"\"\n```\n\"\"\"\n````\n");
  ASSERT_TRUE(l.code);
  EXPECT_EQ(*l.code, "class ModelNew:\n    doc = \"\"\"\n```\n\"\"\"\n");
  auto i = extract_code("  ```python\r\nclass ModelNew: pass\r\n  ```\r\n");
  ASSERT_TRUE(i.code);
  EXPECT_EQ(*i.code, "class ModelNew: pass\n");
}

TEST(CodeExtract, AnUnclosedFenceRunsToTheEnd) {
  auto r = extract_code("```python\nclass ModelNew:\n    def forward(self, x):\n        return x");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "class ModelNew:\n    def forward(self, x):\n        return x\n");
}

TEST(CodeExtract, ABareSourceDefiningModelNew) {
  auto r = extract_code("import torch\nclass ModelNew(torch.nn.Module):\n    pass");
  ASSERT_TRUE(r.code);
  EXPECT_EQ(*r.code, "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n");
}

TEST(CodeExtract, NoCodeIsNone) {
  auto r = extract_code("I need to know which GPU this runs on.");
  EXPECT_FALSE(r.code);
  EXPECT_EQ(r.blocks, 0);
  EXPECT_FALSE(extract_code("```cpp\nint main() {}\n```").code);
  EXPECT_FALSE(extract_code("```python\n\n```").code);
  EXPECT_FALSE(extract_code("").code);
}
