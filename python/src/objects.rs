//! Results built in Rust without a Python frame: the frozen, slotted dataclasses of `edgemem.types` (`Memory`,
//! `SearchHit`) made as their own `__init__` makes them — allocated as `object.__new__` allocates them, each field
//! stored through its slot as `object.__setattr__` stores it — but from here (a `Memory`'s first 13 fields: ~1.3 µs
//! through the dataclass's `__init__`, well under half that here); and vectors read from a list of floats by
//! index, not through the generic sequence protocol.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};

/// A frozen, slotted dataclass of `edgemem.types` and its field names (interned), in declaration order.
pub struct FrozenClass {
    class: Py<PyType>,
    fields: Vec<Py<PyString>>,
}

impl FrozenClass {
    /// `edgemem.types.<name>`; an error unless it is a dataclass with `__slots__` (what `make` relies on).
    pub fn load(py: Python<'_>, name: &str) -> PyResult<FrozenClass> {
        let class = py.import("edgemem.types")?.getattr(name)?.cast_into::<PyType>()?;
        if !class.hasattr("__slots__")? {
            return Err(PyTypeError::new_err(format!("edgemem.types.{name} must be a slotted dataclass")));
        }
        let fields = py
            .import("dataclasses")?
            .call_method1("fields", (&class,))?
            .cast_into::<PyTuple>()?
            .iter()
            .map(|f| Ok(PyString::intern(py, &f.getattr("name")?.extract::<String>()?).unbind()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(FrozenClass { class: class.unbind(), fields })
    }

    /// An instance holding `values`, one per field in order.
    pub fn make<'py>(&self, py: Python<'py>, values: &[Bound<'py, PyAny>]) -> PyResult<Bound<'py, PyAny>> {
        if values.len() != self.fields.len() {
            return Err(PyTypeError::new_err(format!("{} values for {} fields", values.len(), self.fields.len())));
        }
        // SAFETY: the class is a live type object (held by `self.class`); PyType_GenericAlloc is what
        // `object.__new__` calls for a Python-defined class (its tp_alloc): a new reference to a zeroed instance
        // (GC-tracked as the type requires), or NULL with an exception set, which `from_owned_ptr_or_err` turns
        // into the error.
        let obj = unsafe {
            let raw = ffi::PyType_GenericAlloc(self.class.as_ptr().cast::<ffi::PyTypeObject>(), 0);
            Bound::from_owned_ptr_or_err(py, raw)?
        };
        for (name, value) in self.fields.iter().zip(values) {
            // SAFETY: all three are live objects for the call; PyObject_GenericSetAttr is `object.__setattr__`'s
            // body (it finds the field's slot descriptor on the type and stores the value through it, taking its
            // own reference), bypassing the frozen class's `__setattr__` as the dataclass's `__init__` does.
            let rc = unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
            if rc != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(obj)
    }
}

/// A vector argument as f32s: a list read by index (each item a float, or anything `float()` takes), any other
/// sequence through PyO3's extraction.
pub fn vector(obj: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    let Ok(list) = obj.cast::<PyList>() else { return obj.extract() };
    let mut out = Vec::with_capacity(list.len());
    for item in list.iter() {
        // SAFETY: `item` is an owned reference, alive for the call. PyFloat_AsDouble returns -1.0 with an
        // exception set when the item is not a number.
        let x = unsafe { ffi::PyFloat_AsDouble(item.as_ptr()) };
        if x == -1.0 {
            if let Some(e) = PyErr::take(list.py()) {
                return Err(e);
            }
        }
        out.push(x as f32);
    }
    Ok(out)
}
