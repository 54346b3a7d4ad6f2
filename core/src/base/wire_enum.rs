//! `wire_enum!`: a fieldless enum declared from one list of (variant, wire name), for the engine's
//! string-coded enums (error codes, event kinds) whose names cross into JS, HTTP and SQLite.

/// Declares the enum (with the attributes and doc comments given), `ALL` (every variant in declaration
/// order, what the generated TypeScript lists are made from) and `as_str` (the wire name). A new
/// variant is one line in the list.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident {
            $($(#[$doc:meta])* $variant:ident = $name:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($(#[$doc])* $variant,)*
        }

        impl $enum {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant,)*];

            /// The wire form (what JS, HTTP bodies and stored columns carry).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }
        }
    };
}

pub(crate) use wire_enum;
