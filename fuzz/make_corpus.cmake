# Writes the fuzz targets' seed corpora into OUT_DIR (run by the build: cmake -P, no other tool).
#   OUT_DIR/review    AdmissionReviews: tests/testdata/{validate,mutate}/*.request.json, the
#                     fixtures' reviews, and every fixture object wrapped in a CREATE review, as is
#                     and with its placeholder resource names turned into GPUs
#   OUT_DIR/handler   the same reviews
#   OUT_DIR/pod_spec  the objects alone (request.object of each review)
#   OUT_DIR/quantity  one quantity per line of fuzz/quantities.txt
#   OUT_DIR/http_head one request per line of fuzz/http_heads.txt, and an API server review POST
#                     carrying the first tests/testdata review
# Inputs: SOURCE_DIR (the repository), FIXTURES_DIR (tests/testdata/k8s-api).
cmake_minimum_required(VERSION 3.25)
foreach(dir review handler pod_spec quantity http_head)
  file(REMOVE_RECURSE "${OUT_DIR}/${dir}")
  file(MAKE_DIRECTORY "${OUT_DIR}/${dir}")
endforeach()

function(add_review name text)
  file(WRITE "${OUT_DIR}/review/${name}.json" "${text}")
  file(WRITE "${OUT_DIR}/handler/${name}.json" "${text}")
  string(JSON object ERROR_VARIABLE missing GET "${text}" request object)
  if(NOT missing)
    file(WRITE "${OUT_DIR}/pod_spec/${name}.json" "${object}")
  endif()
endfunction()

# An object as the apiserver would send it for CREATE in namespace team-a.
function(add_object name text)
  string(JSON apiVersion GET "${text}" apiVersion)
  string(JSON kind GET "${text}" kind)
  if(apiVersion MATCHES "^(.*)/(.*)$")
    set(group "${CMAKE_MATCH_1}")
    set(version "${CMAKE_MATCH_2}")
  else()
    set(group "")
    set(version "${apiVersion}")
  endif()
  string(TOLOWER "${kind}s" resource)
  string(JSON text SET "${text}" metadata namespace "\"team-a\"")
  set(review [[{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}]])
  string(JSON review SET "${review}" request uid "\"fuzz-${name}\"")
  string(JSON review SET "${review}" request kind
         "{\"group\":\"${group}\",\"version\":\"${version}\",\"kind\":\"${kind}\"}")
  string(JSON review SET "${review}" request resource
         "{\"group\":\"${group}\",\"version\":\"${version}\",\"resource\":\"${resource}\"}")
  string(JSON review SET "${review}" request name "\"nameValue\"")
  string(JSON review SET "${review}" request namespace "\"team-a\"")
  string(JSON review SET "${review}" request operation "\"CREATE\"")
  string(JSON review SET "${review}" request object "${text}")
  add_review("${name}" "${review}")
endfunction()

file(GLOB requests "${SOURCE_DIR}/tests/testdata/*/*.request.json")
foreach(path IN LISTS requests)
  get_filename_component(dir "${path}" DIRECTORY)
  get_filename_component(group "${dir}" NAME)
  get_filename_component(name "${path}" NAME_WE)
  file(READ "${path}" text)
  add_review("${group}-${name}" "${text}")
endforeach()

if(EXISTS "${FIXTURES_DIR}")
  file(GLOB fixtures "${FIXTURES_DIR}/*.json")
  foreach(path IN LISTS fixtures)
    get_filename_component(name "${path}" NAME)
    string(REGEX REPLACE "\\.json$" "" name "${name}")
    file(READ "${path}" text)
    if(name MATCHES "AdmissionReview$")
      add_review("fixture-${name}" "${text}")
      continue()
    endif()
    add_object("fixture-${name}" "${text}")
    # The fixtures' resource lists hold a placeholder name with "0"; make them GPU requests.
    string(REPLACE [["limitsKey": "0"]] [["nvidia.com/gpu": "1"]] gpu "${text}")
    string(REPLACE [["requestsKey": "0"]] [["nvidia.com/gpu": "1"]] gpu "${gpu}")
    if(NOT gpu STREQUAL text)
      add_object("fixture-${name}-gpu" "${gpu}")
    endif()
  endforeach()
endif()

file(STRINGS "${SOURCE_DIR}/fuzz/quantities.txt" quantities)
set(i 0)
foreach(q IN LISTS quantities)
  math(EXPR i "${i} + 1")
  file(WRITE "${OUT_DIR}/quantity/q${i}" "${q}")
endforeach()

# `\r\n` in the file stands for CRLF, a lone `\r` or `\n` for that byte alone; `#` starts a
# comment line.
file(STRINGS "${SOURCE_DIR}/fuzz/http_heads.txt" heads REGEX "^[^#]")
set(i 0)
foreach(head IN LISTS heads)
  math(EXPR i "${i} + 1")
  string(REPLACE "\\r\\n" "\r\n" head "${head}")
  string(REPLACE "\\r" "\r" head "${head}")
  string(REPLACE "\\n" "\n" head "${head}")
  file(WRITE "${OUT_DIR}/http_head/h${i}" "${head}")
endforeach()
if(requests)
  list(GET requests 0 body_path)
  file(READ "${body_path}" body)
  string(LENGTH "${body}" body_bytes)
  file(WRITE "${OUT_DIR}/http_head/apiserver-review"
       "POST /validate?timeout=10s HTTP/1.1\r\nHost: gpugate.gpugate-system.svc:443\r\n"
       "User-Agent: kube-apiserver-admission\r\nContent-Length: ${body_bytes}\r\n"
       "Accept: application/json, */*\r\nContent-Type: application/json\r\n"
       "Accept-Encoding: gzip\r\n\r\n${body}")
endif()
