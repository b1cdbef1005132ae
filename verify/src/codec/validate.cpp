// Tensor checks shared by every reader of the verifier.
#include "codec/validate.hpp"

#include <stdexcept>

namespace rope2d::verify {

const Tensor& need_tensor(const SafeTensors& st, const std::string& name, const std::string& where, const std::string& dtype,
                          const std::vector<std::int64_t>& shape) {
  const auto it = st.tensors.find(name);
  if (it == st.tensors.end()) bad_input(where, "tensor " + name, "present", "nothing");
  const Tensor& t = it->second;
  if (!dtype.empty() && t.dtype != dtype) bad_input(where, "tensor " + name + ".dtype", dtype, t.dtype);
  if (t.shape != shape) bad_input(where, "tensor " + name + ".shape", shape_str(shape), shape_str(t.shape));
  const std::int64_t bytes = checked_mul(checked_product(shape, where + ": tensor " + name), dtype_size(t.dtype),
                                         where + ": tensor " + name);
  if (static_cast<std::int64_t>(t.data.size()) != bytes)
    bad_input(where, "tensor " + name, std::to_string(bytes) + " bytes", std::to_string(t.data.size()));
  return t;
}

}  // namespace rope2d::verify
