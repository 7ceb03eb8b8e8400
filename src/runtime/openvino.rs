//! OpenVINO's runtime, loaded at run time through its C API (`libopenvino_c`), for `irc
//! verify`. Nothing links against OpenVINO at build time: every other command builds, tests
//! and runs without it. The library is looked for in order: `--openvino-lib PATH`,
//! `IRC_OPENVINO_LIB`, the `openvino` pip package of the `python3` on PATH (the wheel ships
//! `openvino/libs/libopenvino_c.so.<version>`), then the standard install locations.
//!
//! Only what `verify` needs is bound: read a model, compile it for CPU with properties, create
//! infer requests, make and read tensors. The non-variadic `*_props` entry points are used, so
//! no C variadic call crosses the boundary.

use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The element types of `ov_element_type_e`, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum OvType {
    Dynamic = 0,
    Boolean,
    Bf16,
    F16,
    F32,
    F64,
    I4,
    I8,
    I16,
    I32,
    I64,
    U1,
    U2,
    U3,
    U4,
    U6,
    U8,
    U16,
    U32,
    U64,
    Nf4,
    F8e4m3,
    F8e5m2,
    String,
    F4e2m1,
    F8e8m0,
}

impl OvType {
    fn from_raw(v: u32) -> Option<OvType> {
        use OvType::*;
        const ALL: [OvType; 26] = [
            Dynamic, Boolean, Bf16, F16, F32, F64, I4, I8, I16, I32, I64, U1, U2, U3, U4, U6, U8,
            U16, U32, U64, Nf4, F8e4m3, F8e5m2, String, F4e2m1, F8e8m0,
        ];
        ALL.get(v as usize).copied()
    }

    /// OpenVINO's name of the type (`f32`, `i64`, `boolean`).
    pub fn name(self) -> &'static str {
        use OvType::*;
        match self {
            Dynamic => "dynamic",
            Boolean => "boolean",
            Bf16 => "bf16",
            F16 => "f16",
            F32 => "f32",
            F64 => "f64",
            I4 => "i4",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U1 => "u1",
            U2 => "u2",
            U3 => "u3",
            U4 => "u4",
            U6 => "u6",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            Nf4 => "nf4",
            F8e4m3 => "f8e4m3",
            F8e5m2 => "f8e5m2",
            String => "string",
            F4e2m1 => "f4e2m1",
            F8e8m0 => "f8e8m0",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, OvType::F32 | OvType::F64 | OvType::F16 | OvType::Bf16)
    }

    /// Bytes per element of the types `verify` makes and reads whole (None: sub-byte, string).
    pub fn size(self) -> Option<usize> {
        use OvType::*;
        Some(match self {
            Boolean | I8 | U8 | F8e4m3 | F8e5m2 | F8e8m0 => 1,
            Bf16 | F16 | I16 | U16 => 2,
            F32 | I32 | U32 => 4,
            F64 | I64 | U64 => 8,
            _ => return None,
        })
    }
}

#[repr(C)]
struct OvShape {
    rank: i64,
    dims: *mut i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct OvDimension {
    min: i64,
    max: i64,
}

#[repr(C)]
struct OvPartialShape {
    rank: OvDimension,
    dims: *mut OvDimension,
}

#[repr(C)]
struct OvProperty {
    key: *const c_char,
    value: *const c_void,
}

#[repr(C)]
struct OvVersion {
    build_number: *const c_char,
    description: *const c_char,
}

type Status = i32;
type P = *mut c_void;

/// The C API functions `verify` calls, resolved once.
struct Api {
    get_version: unsafe extern "C" fn(*mut OvVersion) -> Status,
    version_free: unsafe extern "C" fn(*mut OvVersion),
    core_create: unsafe extern "C" fn(*mut P) -> Status,
    core_free: unsafe extern "C" fn(P),
    add_extension: unsafe extern "C" fn(P, *const c_char) -> Status,
    read_model: unsafe extern "C" fn(P, *const c_char, *const c_char, *mut P) -> Status,
    model_free: unsafe extern "C" fn(P),
    reshape_input: unsafe extern "C" fn(P, *const c_char, OvPartialShape) -> Status,
    partial_shape_create:
        unsafe extern "C" fn(i64, *const OvDimension, *mut OvPartialShape) -> Status,
    compile: unsafe extern "C" fn(P, P, *const c_char, usize, *const OvProperty, *mut P) -> Status,
    compiled_free: unsafe extern "C" fn(P),
    inputs_size: unsafe extern "C" fn(P, *mut usize) -> Status,
    model_inputs_size: unsafe extern "C" fn(P, *mut usize) -> Status,
    model_input_by_index: unsafe extern "C" fn(P, usize, *mut P) -> Status,
    outputs_size: unsafe extern "C" fn(P, *mut usize) -> Status,
    input_by_index: unsafe extern "C" fn(P, usize, *mut P) -> Status,
    output_by_index: unsafe extern "C" fn(P, usize, *mut P) -> Status,
    port_any_name: unsafe extern "C" fn(P, *mut *mut c_char) -> Status,
    port_partial_shape: unsafe extern "C" fn(P, *mut OvPartialShape) -> Status,
    port_element_type: unsafe extern "C" fn(P, *mut u32) -> Status,
    port_free: unsafe extern "C" fn(P),
    partial_shape_free: unsafe extern "C" fn(*mut OvPartialShape),
    create_request: unsafe extern "C" fn(P, *mut P) -> Status,
    request_free: unsafe extern "C" fn(P),
    set_input: unsafe extern "C" fn(P, usize, P) -> Status,
    get_output: unsafe extern "C" fn(P, usize, *mut P) -> Status,
    infer: unsafe extern "C" fn(P) -> Status,
    tensor_create: unsafe extern "C" fn(u32, OvShape, *mut P) -> Status,
    tensor_from_strings:
        unsafe extern "C" fn(*const *const c_char, usize, OvShape, *mut P) -> Status,
    tensor_shape: unsafe extern "C" fn(P, *mut OvShape) -> Status,
    tensor_type: unsafe extern "C" fn(P, *mut u32) -> Status,
    tensor_byte_size: unsafe extern "C" fn(P, *mut usize) -> Status,
    tensor_data: unsafe extern "C" fn(P, *mut *mut c_void) -> Status,
    tensor_free: unsafe extern "C" fn(P),
    shape_create: unsafe extern "C" fn(i64, *const i64, *mut OvShape) -> Status,
    shape_free: unsafe extern "C" fn(*mut OvShape) -> Status,
    free_str: unsafe extern "C" fn(*const c_char),
    last_err: unsafe extern "C" fn() -> *const c_char,
}

/// A loaded OpenVINO runtime and one `ov::Core`.
pub struct Runtime {
    api: Api,
    core: P,
    /// Where the library was found.
    pub path: PathBuf,
    /// OpenVINO's build number (`2026.4.1-…`).
    pub version: String,
}

// The core and the handles made from it are used from one thread at a time.
unsafe impl Send for Runtime {}

const HOW: &str = "irc verify runs models with OpenVINO's runtime, loaded at run time: `pip install openvino` (the python3 on PATH is asked where it is), or point --openvino-lib / IRC_OPENVINO_LIB at libopenvino_c.so";

/// The places `libopenvino_c` is looked for, in order (`explicit`: `--openvino-lib`).
pub fn candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = explicit {
        out.push(p.to_path_buf());
        return out;
    }
    if let Some(p) = std::env::var_os("IRC_OPENVINO_LIB").filter(|p| !p.is_empty()) {
        out.push(PathBuf::from(p));
        return out;
    }
    // The pip package of the python3 on PATH, without importing it (find_spec is quick).
    let ask = Command::new("python3")
        .args([
            "-c",
            "import importlib.util as u, os; s = u.find_spec('openvino'); print(os.path.dirname(s.origin) if s and s.origin else '')",
        ])
        .stderr(std::process::Stdio::null())
        .output();
    if let Ok(o) = ask {
        let dir = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if !dir.is_empty() {
            let libs = Path::new(&dir).join("libs");
            if let Ok(rd) = std::fs::read_dir(&libs) {
                let mut found: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("libopenvino_c.so"))
                    })
                    .collect();
                found.sort();
                out.extend(found);
            }
        }
    }
    for d in [
        "/opt/intel/openvino/runtime/lib/intel64",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/local/lib",
        "/usr/lib",
    ] {
        out.push(Path::new(d).join("libopenvino_c.so"));
    }
    out
}

/// A symbol's address as the function pointer type `F` (the type the field declares).
///
/// # Safety
/// `p` must be a function of the signature `F` names.
unsafe fn fn_ptr<F: Copy>(p: *mut c_void) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: same size; the caller vouches for the signature.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
}

/// The openvino-tokenizers extension library of the `python3` on PATH, if it has the package
/// (`IRC_OPENVINO_TOKENIZERS_LIB` first).
pub fn tokenizers_lib() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IRC_OPENVINO_TOKENIZERS_LIB").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let o = Command::new("python3")
        .args([
            "-c",
            "import importlib.util as u, os; s = u.find_spec('openvino_tokenizers'); print(os.path.dirname(s.origin) if s and s.origin else '')",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let dir = String::from_utf8_lossy(&o.stdout).trim().to_string();
    let lib = Path::new(&dir)
        .join("lib")
        .join("libopenvino_tokenizers.so");
    (!dir.is_empty() && lib.exists()).then_some(lib)
}

fn dlerror() -> String {
    // SAFETY: dlerror returns a thread-local C string or null.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

impl Runtime {
    /// Load the first library of [`candidates`] that opens, and create a core. The error says
    /// where it looked and how to get OpenVINO.
    pub fn load(explicit: Option<&Path>) -> Result<Runtime, String> {
        let mut tried = Vec::new();
        for path in candidates(explicit) {
            if explicit.is_none() && !path.exists() {
                tried.push(format!("{} (absent)", path.display()));
                continue;
            }
            match Self::open(&path) {
                Ok(rt) => return Ok(rt),
                Err(e) => tried.push(format!("{}: {e}", path.display())),
            }
        }
        Err(format!(
            "no OpenVINO runtime found ({}). {HOW}",
            if tried.is_empty() {
                "nowhere to look".to_string()
            } else {
                format!("tried {}", tried.join("; "))
            }
        ))
    }

    fn open(path: &Path) -> Result<Runtime, String> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: dlopen of a shared library; its initializers are OpenVINO's own.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if h.is_null() {
            return Err(dlerror());
        }
        macro_rules! sym {
            ($name:literal) => {{
                let n = concat!($name, "\0");
                // SAFETY: looked up by its C name; the type is the header's signature.
                let p = unsafe { libc::dlsym(h, n.as_ptr() as *const c_char) };
                if p.is_null() {
                    return Err(format!(
                        "{} has no {} (OpenVINO 2025.4 or later is needed)",
                        path.display(),
                        $name
                    ));
                }
                // SAFETY: a function pointer of the declared signature.
                unsafe { fn_ptr(p) }
            }};
        }
        let api = Api {
            get_version: sym!("ov_get_openvino_version"),
            version_free: sym!("ov_version_free"),
            core_create: sym!("ov_core_create"),
            core_free: sym!("ov_core_free"),
            add_extension: sym!("ov_core_add_extension"),
            read_model: sym!("ov_core_read_model"),
            model_free: sym!("ov_model_free"),
            reshape_input: sym!("ov_model_reshape_input_by_name"),
            partial_shape_create: sym!("ov_partial_shape_create"),
            compile: sym!("ov_core_compile_model_props"),
            compiled_free: sym!("ov_compiled_model_free"),
            inputs_size: sym!("ov_compiled_model_inputs_size"),
            model_inputs_size: sym!("ov_model_inputs_size"),
            model_input_by_index: sym!("ov_model_const_input_by_index"),
            outputs_size: sym!("ov_compiled_model_outputs_size"),
            input_by_index: sym!("ov_compiled_model_input_by_index"),
            output_by_index: sym!("ov_compiled_model_output_by_index"),
            port_any_name: sym!("ov_port_get_any_name"),
            port_partial_shape: sym!("ov_port_get_partial_shape"),
            port_element_type: sym!("ov_port_get_element_type"),
            port_free: sym!("ov_output_const_port_free"),
            partial_shape_free: sym!("ov_partial_shape_free"),
            create_request: sym!("ov_compiled_model_create_infer_request"),
            request_free: sym!("ov_infer_request_free"),
            set_input: sym!("ov_infer_request_set_input_tensor_by_index"),
            get_output: sym!("ov_infer_request_get_output_tensor_by_index"),
            infer: sym!("ov_infer_request_infer"),
            tensor_create: sym!("ov_tensor_create"),
            tensor_from_strings: sym!("ov_tensor_create_from_string_array"),
            tensor_shape: sym!("ov_tensor_get_shape"),
            tensor_type: sym!("ov_tensor_get_element_type"),
            tensor_byte_size: sym!("ov_tensor_get_byte_size"),
            tensor_data: sym!("ov_tensor_data"),
            tensor_free: sym!("ov_tensor_free"),
            shape_create: sym!("ov_shape_create"),
            shape_free: sym!("ov_shape_free"),
            free_str: sym!("ov_free"),
            last_err: sym!("ov_get_last_err_msg"),
        };
        let mut v = OvVersion {
            build_number: std::ptr::null(),
            description: std::ptr::null(),
        };
        // SAFETY: fills `v`, freed below.
        let version = unsafe {
            if (api.get_version)(&mut v) == 0 && !v.build_number.is_null() {
                let s = CStr::from_ptr(v.build_number)
                    .to_string_lossy()
                    .into_owned();
                (api.version_free)(&mut v);
                s
            } else {
                "unknown".into()
            }
        };
        let mut core: P = std::ptr::null_mut();
        // SAFETY: creates a core, freed in Drop.
        let st = unsafe { (api.core_create)(&mut core) };
        let rt = Runtime {
            api,
            core,
            path: path.to_path_buf(),
            version,
        };
        if st != 0 {
            return Err(rt.err("creating an OpenVINO core", st));
        }
        Ok(rt)
    }

    fn err(&self, what: &str, st: Status) -> String {
        // SAFETY: a C string owned by the library (or null).
        let msg = unsafe {
            let p = (self.api.last_err)();
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        let msg = msg.trim();
        match msg.is_empty() {
            true => format!("{what}: OpenVINO status {st}"),
            false => format!("{what}: {msg}"),
        }
    }

    /// Load an extension library (custom ops, such as openvino-tokenizers').
    pub fn add_extension(&self, path: &Path) -> Result<(), String> {
        let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: a path string; OpenVINO loads the library into the core.
        let st = unsafe { (self.api.add_extension)(self.core, c.as_ptr()) };
        if st != 0 {
            return Err(self.err(&format!("loading the extension {}", path.display()), st));
        }
        Ok(())
    }

    /// Read `xml` (with `bin`), reshape the inputs `reshape` names to their (min, max) dims
    /// (max -1: unbounded), and compile it for CPU with `props` (key, value) pairs.
    pub fn compile(
        &self,
        xml: &Path,
        bin: &Path,
        reshape: &[(String, Vec<(i64, i64)>)],
        props: &[(&str, &str)],
    ) -> Result<Compiled<'_>, String> {
        let cx = CString::new(xml.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        let cb = CString::new(bin.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        let mut model: P = std::ptr::null_mut();
        // SAFETY: reads the model; freed below once compiled.
        let st = unsafe { (self.api.read_model)(self.core, cx.as_ptr(), cb.as_ptr(), &mut model) };
        if st != 0 {
            return Err(self.err(&format!("OpenVINO cannot read {}", xml.display()), st));
        }
        for (name, dims) in reshape {
            let cn = CString::new(name.as_str()).unwrap_or_default();
            let ds: Vec<OvDimension> = dims
                .iter()
                .map(|&(min, max)| OvDimension { min, max })
                .collect();
            let mut ps = OvPartialShape {
                rank: OvDimension { min: 0, max: 0 },
                dims: std::ptr::null_mut(),
            };
            // SAFETY: the partial shape is made, passed by value and freed here.
            let st = unsafe {
                match (self.api.partial_shape_create)(ds.len() as i64, ds.as_ptr(), &mut ps) {
                    0 => {
                        let st = (self.api.reshape_input)(
                            model,
                            cn.as_ptr(),
                            OvPartialShape {
                                rank: ps.rank,
                                dims: ps.dims,
                            },
                        );
                        (self.api.partial_shape_free)(&mut ps);
                        st
                    }
                    st => st,
                }
            };
            if st != 0 {
                let e = self.err(
                    &format!(
                        "OpenVINO cannot reshape input '{name}' of {}",
                        xml.display()
                    ),
                    st,
                );
                // SAFETY: the model read above.
                unsafe { (self.api.model_free)(model) };
                return Err(e);
            }
        }
        let input_names = self.model_input_names(model);
        let keys: Vec<CString> = props
            .iter()
            .map(|(k, _)| CString::new(*k).unwrap_or_default())
            .collect();
        let vals: Vec<CString> = props
            .iter()
            .map(|(_, v)| CString::new(*v).unwrap_or_default())
            .collect();
        let list: Vec<OvProperty> = keys
            .iter()
            .zip(&vals)
            .map(|(k, v)| OvProperty {
                key: k.as_ptr(),
                value: v.as_ptr() as *const c_void,
            })
            .collect();
        let mut compiled: P = std::ptr::null_mut();
        let dev = c"CPU";
        // SAFETY: the property strings outlive the call; the model is freed after it.
        let st = unsafe {
            let st = (self.api.compile)(
                self.core,
                model,
                dev.as_ptr(),
                list.len(),
                list.as_ptr(),
                &mut compiled,
            );
            (self.api.model_free)(model);
            st
        };
        if st != 0 {
            return Err(self.err(
                &format!("OpenVINO cannot compile {} for CPU", xml.display()),
                st,
            ));
        }
        Ok(Compiled {
            rt: self,
            ptr: compiled,
            input_names,
        })
    }

    /// A port's name (OpenVINO's `get_any_name`), empty when it has none.
    fn any_name(&self, port: P) -> String {
        let mut name: *mut c_char = std::ptr::null_mut();
        // SAFETY: a live port; the string is freed here.
        unsafe {
            match (self.api.port_any_name)(port, &mut name) {
                0 if !name.is_null() => {
                    let s = CStr::from_ptr(name).to_string_lossy().into_owned();
                    (self.api.free_str)(name);
                    s
                }
                _ => String::new(),
            }
        }
    }

    /// The names of a read (not yet compiled) model's inputs, in order.
    fn model_input_names(&self, model: P) -> Vec<String> {
        let mut n = 0usize;
        // SAFETY: queries of a live model; ports freed here.
        unsafe {
            if (self.api.model_inputs_size)(model, &mut n) != 0 {
                return Vec::new();
            }
            (0..n)
                .map(|i| {
                    let mut port: P = std::ptr::null_mut();
                    if (self.api.model_input_by_index)(model, i, &mut port) != 0 {
                        return String::new();
                    }
                    let s = self.any_name(port);
                    (self.api.port_free)(port);
                    s
                })
                .collect()
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // SAFETY: the core made in `open`; every handle borrowing it is gone.
        unsafe { (self.api.core_free)(self.core) }
    }
}

/// An input or output of a compiled model.
#[derive(Debug, Clone)]
pub struct PortInfo {
    pub name: String,
    pub et: Option<OvType>,
    /// Dims, `None` where dynamic; `None` overall for a dynamic rank.
    pub dims: Option<Vec<Option<u64>>>,
    /// Interval bounds per dim (max -1: unbounded), for choosing run-time dims.
    pub bounds: Vec<(i64, i64)>,
}

/// A model compiled for CPU.
pub struct Compiled<'a> {
    rt: &'a Runtime,
    ptr: P,
    /// Each input's name in the model as read (before compiling): the plugin's own passes may
    /// move other tensor names onto an input (a Reshape of `input_ids` removed gives the input
    /// the Reshape's names too), which changes what the compiled model's port calls itself.
    input_names: Vec<String>,
}

impl Compiled<'_> {
    fn ports(&self, outputs: bool) -> Result<Vec<PortInfo>, String> {
        let api = &self.rt.api;
        let mut n = 0usize;
        // SAFETY: queries of a live compiled model; ports and strings freed here.
        unsafe {
            let st = match outputs {
                true => (api.outputs_size)(self.ptr, &mut n),
                false => (api.inputs_size)(self.ptr, &mut n),
            };
            if st != 0 {
                return Err(self.rt.err("listing the model's ports", st));
            }
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let mut port: P = std::ptr::null_mut();
                let st = match outputs {
                    true => (api.output_by_index)(self.ptr, i, &mut port),
                    false => (api.input_by_index)(self.ptr, i, &mut port),
                };
                if st != 0 {
                    return Err(self.rt.err("reading a port", st));
                }
                let name = match (outputs, self.input_names.get(i)) {
                    (false, Some(n)) if !n.is_empty() => n.clone(),
                    _ => self.rt.any_name(port),
                };
                let mut et = 0u32;
                let et = match (api.port_element_type)(port, &mut et) {
                    0 => OvType::from_raw(et),
                    _ => None,
                };
                let mut ps = OvPartialShape {
                    rank: OvDimension { min: -1, max: -1 },
                    dims: std::ptr::null_mut(),
                };
                let (dims, bounds) = match (api.port_partial_shape)(port, &mut ps) {
                    0 => {
                        let r = ps.rank;
                        let res = if r.min == r.max && r.min >= 0 && !ps.dims.is_null() {
                            let ds = std::slice::from_raw_parts(ps.dims, r.min as usize);
                            let dims = ds
                                .iter()
                                .map(|d| (d.min == d.max && d.min >= 0).then_some(d.min as u64))
                                .collect();
                            (Some(dims), ds.iter().map(|d| (d.min, d.max)).collect())
                        } else {
                            (None, Vec::new())
                        };
                        (api.partial_shape_free)(&mut ps);
                        res
                    }
                    _ => (None, Vec::new()),
                };
                (api.port_free)(port);
                out.push(PortInfo {
                    name,
                    et,
                    dims,
                    bounds,
                });
            }
            Ok(out)
        }
    }

    pub fn inputs(&self) -> Result<Vec<PortInfo>, String> {
        self.ports(false)
    }

    pub fn outputs(&self) -> Result<Vec<PortInfo>, String> {
        self.ports(true)
    }

    /// A new infer request (its variable states start from their initial values).
    pub fn request(&self) -> Result<Request<'_>, String> {
        let mut r: P = std::ptr::null_mut();
        // SAFETY: creates a request, freed in Drop.
        let st = unsafe { (self.rt.api.create_request)(self.ptr, &mut r) };
        if st != 0 {
            return Err(self.rt.err("creating an infer request", st));
        }
        Ok(Request {
            rt: self.rt,
            ptr: r,
        })
    }
}

impl Drop for Compiled<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `compile`.
        unsafe { (self.rt.api.compiled_free)(self.ptr) }
    }
}

/// A tensor's contents, copied out of OpenVINO.
#[derive(Debug, Clone)]
pub struct HostTensor {
    pub et: OvType,
    pub shape: Vec<u64>,
    /// Little-endian element bytes (strings: empty; see `strings`).
    pub data: Vec<u8>,
    pub strings: Vec<String>,
}

/// An infer request.
pub struct Request<'a> {
    rt: &'a Runtime,
    ptr: P,
}

impl Request<'_> {
    /// Set input `i` to a copy of `t`.
    pub fn set_input(&mut self, i: usize, t: &HostTensor) -> Result<(), String> {
        let api = &self.rt.api;
        let dims: Vec<i64> = t.shape.iter().map(|&d| d as i64).collect();
        // SAFETY: the shape and tensor are made, filled and freed here; OpenVINO keeps its own
        // reference to the tensor it is given.
        unsafe {
            let mut shape = OvShape {
                rank: 0,
                dims: std::ptr::null_mut(),
            };
            let st = (api.shape_create)(dims.len() as i64, dims.as_ptr(), &mut shape);
            if st != 0 {
                return Err(self.rt.err("making a shape", st));
            }
            let mut tensor: P = std::ptr::null_mut();
            let st = if t.et == OvType::String {
                let cs: Vec<CString> = t
                    .strings
                    .iter()
                    .map(|s| CString::new(s.as_str()).unwrap_or_default())
                    .collect();
                let ps: Vec<*const c_char> = cs.iter().map(|c| c.as_ptr()).collect();
                (api.tensor_from_strings)(
                    ps.as_ptr(),
                    ps.len(),
                    OvShape {
                        rank: shape.rank,
                        dims: shape.dims,
                    },
                    &mut tensor,
                )
            } else {
                let st = (api.tensor_create)(
                    t.et as u32,
                    OvShape {
                        rank: shape.rank,
                        dims: shape.dims,
                    },
                    &mut tensor,
                );
                if st == 0 {
                    let mut data: *mut c_void = std::ptr::null_mut();
                    let mut size = 0usize;
                    if (api.tensor_data)(tensor, &mut data) == 0
                        && (api.tensor_byte_size)(tensor, &mut size) == 0
                        && size == t.data.len()
                        && !data.is_null()
                    {
                        std::ptr::copy_nonoverlapping(t.data.as_ptr(), data as *mut u8, size);
                    } else {
                        (api.tensor_free)(tensor);
                        (api.shape_free)(&mut shape);
                        return Err(format!(
                            "input {i}: OpenVINO's tensor does not hold the {} bytes made for it",
                            t.data.len()
                        ));
                    }
                }
                st
            };
            (api.shape_free)(&mut shape);
            if st != 0 {
                return Err(self.rt.err(&format!("making input {i}"), st));
            }
            let st = (api.set_input)(self.ptr, i, tensor);
            (api.tensor_free)(tensor);
            if st != 0 {
                return Err(self.rt.err(&format!("setting input {i}"), st));
            }
        }
        Ok(())
    }

    pub fn infer(&mut self) -> Result<(), String> {
        // SAFETY: a live request with its inputs set.
        let st = unsafe { (self.rt.api.infer)(self.ptr) };
        if st != 0 {
            return Err(self.rt.err("inference failed", st));
        }
        Ok(())
    }

    /// A copy of output `i` after `infer`.
    pub fn output(&self, i: usize) -> Result<HostTensor, String> {
        let api = &self.rt.api;
        // SAFETY: reads the output tensor of a finished request; freed here.
        unsafe {
            let mut t: P = std::ptr::null_mut();
            let st = (api.get_output)(self.ptr, i, &mut t);
            if st != 0 {
                return Err(self.rt.err(&format!("reading output {i}"), st));
            }
            if t.is_null() {
                return Err(format!("output {i}: OpenVINO gave no tensor"));
            }
            let mut shape = OvShape {
                rank: 0,
                dims: std::ptr::null_mut(),
            };
            let mut et = 0u32;
            let mut size = 0usize;
            let mut data: *mut c_void = std::ptr::null_mut();
            // An empty tensor (a cache of no tokens yet) has no data to ask for.
            let sts = [
                (api.tensor_shape)(t, &mut shape),
                (api.tensor_type)(t, &mut et),
                (api.tensor_byte_size)(t, &mut size),
            ];
            let st_data = match size {
                0 => 0,
                _ => (api.tensor_data)(t, &mut data),
            };
            let ok = sts.iter().all(|&s| s == 0) && st_data == 0;
            if !ok {
                let e = format!(
                    "output {i}: OpenVINO did not describe the tensor (status {sts:?}, {st_data})"
                );
                (api.tensor_free)(t);
                return Err(e);
            }
            let dims: Vec<u64> = if ok && !shape.dims.is_null() {
                std::slice::from_raw_parts(shape.dims, shape.rank.max(0) as usize)
                    .iter()
                    .map(|&d| d.max(0) as u64)
                    .collect()
            } else {
                Vec::new()
            };
            if ok {
                (api.shape_free)(&mut shape);
            }
            let et = OvType::from_raw(et).unwrap_or(OvType::Dynamic);
            let res = match (ok, et) {
                (false, _) => Err(format!("output {i}: OpenVINO did not describe the tensor")),
                (true, OvType::String) => {
                    // std::string elements: read through the C++ layout is not portable; the
                    // strings are compared by count only.
                    Ok(HostTensor {
                        et,
                        shape: dims,
                        data: Vec::new(),
                        strings: Vec::new(),
                    })
                }
                (true, _) => {
                    let bytes = match data.is_null() || size == 0 {
                        true => Vec::new(),
                        false => std::slice::from_raw_parts(data as *const u8, size).to_vec(),
                    };
                    Ok(HostTensor {
                        et,
                        shape: dims,
                        data: bytes,
                        strings: Vec::new(),
                    })
                }
            };
            (api.tensor_free)(t);
            res
        }
    }
}

impl Drop for Request<'_> {
    fn drop(&mut self) {
        // SAFETY: made by `request`.
        unsafe { (self.rt.api.request_free)(self.ptr) }
    }
}
