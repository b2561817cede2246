//! HSA: the runtime's `OnLoad` entry point and the wrappers of the HSA API
//! table will live here, beside `opencl/`, over the same bottom (the call
//! bracket, the configuration, start-up and finish).
