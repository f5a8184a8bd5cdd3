//! The Vulkan registry (`vk.xml`) read into plain Rust values: types, enums, commands, core
//! versions and extensions. Only the Vulkan API is kept (elements marked `api="vulkansc"` alone
//! are dropped). Nothing here knows what Tessera supports; see `config.rs` for that.

use std::collections::{BTreeMap, HashMap};

use roxmltree::{Document, Node};

/// A struct member or command parameter.
#[derive(Debug, Clone)]
pub struct Member {
    /// Its name (`sType`, `pCreateInfo`, …).
    pub name: String,
    /// The base type name (`uint32_t`, `VkBufferCreateInfo`, `void`, …).
    pub ty: String,
    /// Number of `*`.
    pub pointers: usize,
    /// Whether the pointee is `const` (`const T*`).
    pub is_const: bool,
    /// For each pointer level from the innermost, whether what it points to is `const`
    /// (`const char* const*` → `[true, true]`; `void**` → `[false, false]`).
    pub pointee_const: Vec<bool>,
    /// A fixed array size: a literal or a constant name (`VK_UUID_SIZE`); two for 2-D arrays.
    pub array: Vec<String>,
    /// The `len` attribute (`count`, `null-terminated`, `count,null-terminated`, latexmath).
    pub len: Option<String>,
    /// The `optional` attribute, one flag per pointer level (`true,false`).
    pub optional: Vec<bool>,
    /// `noautovalidity="true"`: the implicit rules do not apply; the spec says when it is valid.
    pub noautovalidity: bool,
    /// `values="VK_STRUCTURE_TYPE_…"` on an `sType` member.
    pub values: Option<String>,
    /// A bit-field width (`uint32_t x:24`), for the few structs that have them.
    pub bitfield: Option<u32>,
}

impl Member {
    /// Whether the first level (the value or the outer pointer) may be null / zero.
    pub fn is_optional(&self) -> bool {
        self.optional.first().copied().unwrap_or(false)
    }
}

/// One value of an enum or bitmask, with its numeric value when it is not an alias.
#[derive(Debug, Clone)]
pub struct EnumValue {
    /// `VK_COMMAND_BUFFER_LEVEL_PRIMARY`.
    pub name: String,
    /// The value (a bit's value for bitmasks); `None` for aliases.
    pub value: Option<i128>,
}

/// What kind of type a name is.
#[derive(Debug, Clone)]
pub enum TypeKind {
    /// A struct or union.
    Struct {
        members: Vec<Member>,
        extends: Vec<String>,
        union: bool,
    },
    /// A handle and its `VkObjectType` value's name.
    Handle { object_type: Option<String> },
    /// An enum (`VkCommandBufferLevel`); its values are in [`Registry::enums`].
    Enum,
    /// A bitmask typedef (`VkBufferUsageFlags`) and the enum of its bits, if any.
    Bitmask { bits: Option<String> },
    /// `VkBool32`, `VkDeviceSize`, … and C types.
    Basic,
    /// A function pointer type.
    FuncPointer,
    /// Another name for `target`.
    Alias(String),
}

/// A type of the registry.
#[derive(Debug, Clone)]
pub struct Type {
    /// What it is.
    pub kind: TypeKind,
}

/// A command.
#[derive(Debug, Clone)]
pub struct Command {
    /// `vkCreateBuffer`.
    pub name: String,
    /// Its return type (`VkResult`, `void`, …).
    pub ret: String,
    /// Its parameters in order.
    pub params: Vec<Member>,
}

/// A `<require>` block of a core version or extension.
#[derive(Debug, Clone, Default)]
pub struct Require {
    /// Its `depends` expression, if any.
    pub depends: Option<String>,
    /// Commands it adds.
    pub commands: Vec<String>,
    /// Types it adds.
    pub types: Vec<String>,
}

/// A core version (`VK_VERSION_1_2`) or one of its internal parts (`VK_COMPUTE_VERSION_1_2`).
#[derive(Debug, Clone)]
pub struct Feature {
    /// `(1, 2)`.
    pub version: (u32, u32),
    /// Its require blocks.
    pub requires: Vec<Require>,
}

/// An extension.
#[derive(Debug, Clone)]
pub struct Extension {
    /// `device` or `instance`.
    pub kind: String,
    /// `VK_…_SPEC_VERSION`.
    pub spec_version: u32,
    /// Its require blocks.
    pub requires: Vec<Require>,
}

/// The registry.
#[derive(Debug, Default)]
pub struct Registry {
    /// Every type by name.
    pub types: HashMap<String, Type>,
    /// Values of each enum or bitmask-bits enum, by enum name.
    pub enums: HashMap<String, Vec<EnumValue>>,
    /// API constants (`VK_UUID_SIZE` → `16`).
    pub constants: HashMap<String, String>,
    /// Every command by name (aliases are in [`Self::command_aliases`]).
    pub commands: HashMap<String, Command>,
    /// Command alias → the command it names.
    pub command_aliases: HashMap<String, String>,
    /// Core versions, in file order.
    pub features: Vec<Feature>,
    /// Extensions by name.
    pub extensions: BTreeMap<String, Extension>,
    /// The values each extension adds to existing enums: `(extension, enum, value)`.
    pub added_by_extension: Vec<AddedValue>,
}

fn is_vulkan(node: Node) -> bool {
    node.attribute("api")
        .is_none_or(|api| api.split(',').any(|a| a == "vulkan"))
}

fn text_of(node: Node, child: &str) -> Option<String> {
    node.children()
        .find(|c| c.has_tag_name(child))
        .and_then(|c| c.text())
        .map(str::to_string)
}

/// Reads a `<member>` or `<param>`.
fn member(node: Node) -> Member {
    let mut ty = String::new();
    let mut name = String::new();
    let mut pointers = 0;
    let mut is_const = false;
    let mut pointee_const: Vec<bool> = Vec::new();
    let mut array = Vec::new();
    let mut bitfield = None;
    let mut after_name = false;
    for child in node.children() {
        if child.has_tag_name("type") {
            ty = child.text().unwrap_or_default().to_string();
        } else if child.has_tag_name("name") {
            name = child.text().unwrap_or_default().to_string();
            after_name = true;
        } else if child.has_tag_name("enum") && after_name {
            array.push(child.text().unwrap_or_default().to_string());
        } else if child.is_text() {
            let text = child.text().unwrap_or_default();
            if after_name {
                // `[3]`, `[2][3]`, `[` before an <enum>, or `:24`.
                let mut rest = text.trim();
                if let Some(bits) = rest.strip_prefix(':') {
                    bitfield = bits.trim().parse().ok();
                    continue;
                }
                while let Some(open) = rest.find('[') {
                    let close = rest[open..].find(']').map(|c| c + open);
                    match close {
                        Some(close) if close > open + 1 => {
                            array.push(rest[open + 1..close].to_string());
                            rest = &rest[close + 1..];
                        }
                        _ => break,
                    }
                }
            } else {
                // Before the type: `const `; between the type and the name: `*`, `* const*`.
                let seen_type = !ty.is_empty();
                let spaced = text.replace('*', " * ");
                for token in spaced.split_whitespace() {
                    match token {
                        "const" if !seen_type || pointers == 0 => is_const = true,
                        "const" => {
                            if let Some(level) = pointee_const.get_mut(pointers) {
                                *level = true;
                            } else {
                                pointee_const.resize(pointers + 1, false);
                                pointee_const[pointers] = true;
                            }
                        }
                        "*" => pointers += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    pointee_const.resize(pointers.max(pointee_const.len()), false);
    pointee_const.truncate(pointers);
    if let Some(first) = pointee_const.first_mut() {
        *first = is_const;
    }
    Member {
        name,
        ty,
        pointers,
        is_const,
        pointee_const,
        array,
        len: node.attribute("len").map(str::to_string),
        optional: node
            .attribute("optional")
            .map(|o| o.split(',').map(|v| v == "true").collect())
            .unwrap_or_default(),
        noautovalidity: node.attribute("noautovalidity") == Some("true"),
        values: node.attribute("values").map(str::to_string),
        bitfield,
    }
}

fn require(node: Node) -> Require {
    let mut r = Require {
        depends: node.attribute("depends").map(str::to_string),
        ..Require::default()
    };
    for child in node.children().filter(|c| is_vulkan(*c)) {
        if let Some(name) = child.attribute("name") {
            if child.has_tag_name("command") {
                r.commands.push(name.to_string());
            } else if child.has_tag_name("type") {
                r.types.push(name.to_string());
            }
        }
    }
    r
}

/// The value of an `<enum>` that adds to an enum (`offset`, `bitpos`, `value`), or `None` for an
/// alias.
fn added_value(node: Node, ext_number: Option<i128>) -> Option<i128> {
    if let Some(bit) = node.attribute("bitpos") {
        return bit.parse::<u32>().ok().map(|b| 1i128 << b);
    }
    if let Some(offset) = node.attribute("offset") {
        let number = node
            .attribute("extnumber")
            .and_then(|n| n.parse().ok())
            .or(ext_number)?;
        let v = 1_000_000_000 + (number - 1) * 1000 + offset.parse::<i128>().ok()?;
        return Some(if node.attribute("dir") == Some("-") {
            -v
        } else {
            v
        });
    }
    node.attribute("value").and_then(parse_int)
}

fn parse_int(text: &str) -> Option<i128> {
    let t = text.trim().trim_end_matches(['U', 'L', 'u', 'l']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => t.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

impl Registry {
    /// Parses registry XML.
    pub fn parse(xml: &str) -> Result<Registry, String> {
        let doc = Document::parse(xml).map_err(|e| format!("registry XML: {e}"))?;
        let root = doc.root_element();
        let mut reg = Registry::default();
        for section in root.children().filter(|c| c.is_element()) {
            match section.tag_name().name() {
                "types" => {
                    for t in section.children().filter(|c| c.has_tag_name("type")) {
                        if is_vulkan(t) {
                            reg.read_type(t);
                        }
                    }
                }
                "enums" => reg.read_enums(section),
                "commands" => {
                    for c in section.children().filter(|c| c.has_tag_name("command")) {
                        if is_vulkan(c) {
                            reg.read_command(c);
                        }
                    }
                }
                "feature" if is_vulkan(section) => {
                    let number = section.attribute("number").unwrap_or("1.0");
                    let (major, minor) = number.split_once('.').unwrap_or(("1", "0"));
                    let requires = section
                        .children()
                        .filter(|c| c.has_tag_name("require") && is_vulkan(*c))
                        .map(require)
                        .collect();
                    for r in section.children().filter(|c| c.has_tag_name("require")) {
                        reg.read_added_enums(r, None, None);
                    }
                    reg.features.push(Feature {
                        version: (major.parse().unwrap_or(1), minor.parse().unwrap_or(0)),
                        requires,
                    });
                }
                "extensions" => {
                    for e in section.children().filter(|c| c.has_tag_name("extension")) {
                        reg.read_extension(e);
                    }
                }
                _ => {}
            }
        }
        Ok(reg)
    }

    fn read_type(&mut self, t: Node) {
        let category = t.attribute("category").unwrap_or("");
        let name = t
            .attribute("name")
            .map(str::to_string)
            .or_else(|| text_of(t, "name"))
            .unwrap_or_default();
        if name.is_empty() {
            return;
        }
        let kind = if let Some(alias) = t.attribute("alias") {
            TypeKind::Alias(alias.to_string())
        } else {
            match category {
                "struct" | "union" => TypeKind::Struct {
                    members: t
                        .children()
                        .filter(|c| c.has_tag_name("member") && is_vulkan(*c))
                        .map(member)
                        .collect(),
                    extends: t
                        .attribute("structextends")
                        .map(|e| e.split(',').map(str::to_string).collect())
                        .unwrap_or_default(),
                    union: category == "union",
                },
                "handle" => TypeKind::Handle {
                    object_type: t.attribute("objtypeenum").map(str::to_string),
                },
                "enum" => TypeKind::Enum,
                "bitmask" => TypeKind::Bitmask {
                    bits: t
                        .attribute("requires")
                        .or(t.attribute("bitvalues"))
                        .map(str::to_string),
                },
                "funcpointer" => TypeKind::FuncPointer,
                _ => TypeKind::Basic,
            }
        };
        self.types.insert(name, Type { kind });
    }

    fn read_enums(&mut self, section: Node) {
        let name = section.attribute("name").unwrap_or_default().to_string();
        let is_constants = section.attribute("type").is_none_or(|t| t == "constants");
        for e in section.children().filter(|c| c.has_tag_name("enum")) {
            if !is_vulkan(e) {
                continue;
            }
            let Some(value_name) = e.attribute("name") else {
                continue;
            };
            if is_constants {
                if let Some(v) = e.attribute("value") {
                    self.constants.insert(value_name.to_string(), v.to_string());
                }
                continue;
            }
            let value = if e.attribute("alias").is_some() {
                None
            } else {
                added_value(e, None)
            };
            self.enums.entry(name.clone()).or_default().push(EnumValue {
                name: value_name.to_string(),
                value,
            });
        }
        self.enums.entry(name).or_default();
    }

    /// Records the values a `<require>` block adds to existing enums.
    fn read_added_enums(&mut self, require: Node, ext_number: Option<i128>, ext: Option<&str>) {
        for e in require.children().filter(|c| c.has_tag_name("enum")) {
            if !is_vulkan(e) {
                continue;
            }
            let (Some(extends), Some(name)) = (e.attribute("extends"), e.attribute("name")) else {
                continue;
            };
            let value = if e.attribute("alias").is_some() {
                None
            } else {
                added_value(e, ext_number)
            };
            let added = EnumValue {
                name: name.to_string(),
                value,
            };
            if let Some(ext) = ext {
                self.added_by_extension.push(AddedValue {
                    extension: ext.to_string(),
                    depends: require.attribute("depends").map(str::to_string),
                    extends: extends.to_string(),
                    value: added.clone(),
                });
            }
            let values = self.enums.entry(extends.to_string()).or_default();
            if !values.iter().any(|v| v.name == name) {
                values.push(added);
            }
        }
    }

    fn read_command(&mut self, c: Node) {
        if let (Some(name), Some(alias)) = (c.attribute("name"), c.attribute("alias")) {
            self.command_aliases
                .insert(name.to_string(), alias.to_string());
            return;
        }
        let Some(proto) = c.children().find(|n| n.has_tag_name("proto")) else {
            return;
        };
        let name = text_of(proto, "name").unwrap_or_default();
        let ret = text_of(proto, "type").unwrap_or_default();
        let params = c
            .children()
            .filter(|n| n.has_tag_name("param") && is_vulkan(*n))
            .map(member)
            .collect();
        self.commands
            .insert(name.clone(), Command { name, ret, params });
    }

    fn read_extension(&mut self, e: Node) {
        let supported = e.attribute("supported").unwrap_or("");
        let name = e.attribute("name").unwrap_or_default().to_string();
        let number = e.attribute("number").and_then(parse_int).unwrap_or(0);
        // Enum values are added even for extensions that are not Vulkan's (they still take
        // their numbers), so read those first.
        for r in e.children().filter(|c| c.has_tag_name("require")) {
            self.read_added_enums(r, Some(number), Some(&name));
        }
        if !supported.split(',').any(|s| s == "vulkan") {
            return;
        }
        let spec_version = e
            .descendants()
            .filter(|d| d.has_tag_name("enum"))
            .find(|d| {
                d.attribute("name")
                    .is_some_and(|n| n.ends_with("_SPEC_VERSION"))
            })
            .and_then(|d| d.attribute("value"))
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        let ext = Extension {
            kind: e.attribute("type").unwrap_or("device").to_string(),
            spec_version,
            requires: e
                .children()
                .filter(|c| c.has_tag_name("require") && is_vulkan(*c))
                .map(require)
                .collect(),
        };
        self.extensions.insert(name, ext);
    }

    /// The struct members of `name` (following aliases), or `None` when it is not a struct.
    pub fn struct_members(&self, name: &str) -> Option<&[Member]> {
        match &self.types.get(self.resolve_type(name))?.kind {
            TypeKind::Struct { members, .. } => Some(members),
            _ => None,
        }
    }

    /// `name` with type aliases followed.
    pub fn resolve_type<'a>(&'a self, name: &'a str) -> &'a str {
        let mut name = name;
        for _ in 0..8 {
            match self.types.get(name).map(|t| &t.kind) {
                Some(TypeKind::Alias(target)) => name = target,
                _ => break,
            }
        }
        name
    }

    /// The kind of `name`, aliases followed.
    pub fn kind(&self, name: &str) -> Option<&TypeKind> {
        self.types.get(self.resolve_type(name)).map(|t| &t.kind)
    }

    /// The `structextends` parents of a struct.
    pub fn extends(&self, name: &str) -> &[String] {
        match self.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Struct { extends, .. }) => extends,
            _ => &[],
        }
    }

    /// The numeric value of an API constant.
    pub fn constant(&self, name: &str) -> Option<i128> {
        self.constants.get(name).and_then(|v| parse_int(v))
    }
}

/// An enum value an extension's `<require>` block adds to an existing enum.
#[derive(Debug, Clone)]
pub struct AddedValue {
    /// The extension.
    pub extension: String,
    /// The block's `depends` expression: the value exists only when it holds too.
    pub depends: Option<String>,
    /// The enum extended.
    pub extends: String,
    /// The value.
    pub value: EnumValue,
}

/// Evaluates a `depends` expression (`A+B`, `A,B`, parentheses) with `has` deciding each name.
pub fn depends_holds(expr: &str, has: &dyn Fn(&str) -> bool) -> bool {
    fn or(tokens: &[char], pos: &mut usize, has: &dyn Fn(&str) -> bool) -> bool {
        let mut value = and(tokens, pos, has);
        while tokens.get(*pos) == Some(&',') {
            *pos += 1;
            let rhs = and(tokens, pos, has);
            value = value || rhs;
        }
        value
    }
    fn and(tokens: &[char], pos: &mut usize, has: &dyn Fn(&str) -> bool) -> bool {
        let mut value = atom(tokens, pos, has);
        while tokens.get(*pos) == Some(&'+') {
            *pos += 1;
            let rhs = atom(tokens, pos, has);
            value = value && rhs;
        }
        value
    }
    fn atom(tokens: &[char], pos: &mut usize, has: &dyn Fn(&str) -> bool) -> bool {
        if tokens.get(*pos) == Some(&'(') {
            *pos += 1;
            let v = or(tokens, pos, has);
            if tokens.get(*pos) == Some(&')') {
                *pos += 1;
            }
            return v;
        }
        let start = *pos;
        while tokens
            .get(*pos)
            .is_some_and(|c| !matches!(c, ',' | '+' | '(' | ')'))
        {
            *pos += 1;
        }
        let name: String = tokens[start..*pos].iter().collect();
        has(name.trim())
    }
    let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pos = 0;
    or(&tokens, &mut pos, has)
}

/// The names a `depends` expression mentions.
pub fn depends_names(expr: &str) -> Vec<String> {
    expr.split([',', '+', '(', ')'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_expressions() {
        let has = |n: &str| n == "A" || n == "C";
        assert!(depends_holds("A", &has));
        assert!(!depends_holds("B", &has));
        assert!(depends_holds("B,A", &has));
        assert!(!depends_holds("A+B", &has));
        assert!(depends_holds("(A+B),C", &has));
        assert!(depends_holds("A+(B,C)", &has));
    }

    #[test]
    fn members_and_values() {
        let xml = r#"<registry>
<types>
<type category="struct" name="S"><member values="VK_STRUCTURE_TYPE_S"><type>VkStructureType</type> <name>sType</name></member>
<member optional="true">const <type>void</type>* <name>pNext</name></member>
<member len="n">const <type>uint32_t</type>* <name>p</name></member>
<member><type>char</type> <name>s</name>[<enum>VK_MAX</enum>]</member>
<member><type>float</type> <name>m</name>[3][4]</member></type>
</types>
<enums name="VkE" type="enum"><enum value="0" name="VK_E_A"/><enum value="0x10" name="VK_E_B"/></enums>
<extensions><extension name="VK_X_y" number="3" type="device" supported="vulkan"><require>
<enum value="2" name="VK_X_Y_SPEC_VERSION"/><enum offset="1" extends="VkE" name="VK_E_X"/>
</require></extension></extensions>
</registry>"#;
        let reg = Registry::parse(xml).unwrap();
        let m = reg.struct_members("S").unwrap();
        assert_eq!(m[0].values.as_deref(), Some("VK_STRUCTURE_TYPE_S"));
        assert_eq!((m[1].pointers, m[1].is_const), (1, true));
        assert_eq!(m[2].len.as_deref(), Some("n"));
        assert_eq!(m[3].array, ["VK_MAX"]);
        assert_eq!(m[4].array, ["3", "4"]);
        let values: Vec<_> = reg.enums["VkE"].iter().map(|v| v.value).collect();
        assert_eq!(values, [Some(0), Some(16), Some(1_000_002_001)]);
        assert_eq!(reg.extensions["VK_X_y"].spec_version, 2);
    }
}
