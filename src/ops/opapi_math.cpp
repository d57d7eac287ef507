// libopapi_math.so exists because CANN's ops-nn sample links it; no math operator lives here yet.
