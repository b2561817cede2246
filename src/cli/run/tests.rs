use super::*;

#[test]
fn every_variable_an_option_sets_is_found_in_the_help() {
    assert_eq!(option_of("CLTAP_WINDOW").as_deref(), Some("--window"));
    assert_eq!(option_of("CLTAP_BUFFER_SIZE").as_deref(), Some("--buffer-size"));
    assert_eq!(option_of("CLTAP_KERNEL_INCLUDE").as_deref(), Some("--kernel-include"));
    assert_eq!(option_of("CLTAP_WINDOW_CALLS").as_deref(), Some("--window-calls"));
    assert_eq!(option_of("CLTAP_NOT_AN_OPTION"), None);
}

#[test]
fn hsa_tools_lib_appends_to_an_existing_value() {
    assert_eq!(hsa_tools_lib(Path::new("/l/libcltap_layer.so"), None), "/l/libcltap_layer.so");
    assert_eq!(hsa_tools_lib(Path::new("/l/libcltap_layer.so"), Some("a.so b.so")), "a.so b.so /l/libcltap_layer.so");
    assert_eq!(hsa_tools_lib(Path::new("/a b/libcltap_layer.so"), Some(" ")), "\"/a b/libcltap_layer.so\"");
}

#[test]
fn hsa_tools_lib_already_naming_the_layer_is_kept() {
    let dir = std::env::temp_dir().join(format!("cltap-toolslib-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a b")).unwrap();
    let layer = dir.join("libcltap_layer.so");
    std::fs::write(&layer, b"x").unwrap();
    std::os::unix::fs::symlink(&layer, dir.join("a b/link.so")).unwrap();
    std::fs::write(dir.join("copy.so"), b"x").unwrap();
    let l = layer.display().to_string();
    let link = format!("t.so \"{}\"", dir.join("a b/link.so").display());
    assert_eq!(hsa_tools_lib(&layer, Some(&l)), l);
    assert_eq!(hsa_tools_lib(&layer, Some(&link)), link);
    let copy = dir.join("copy.so").display().to_string();
    assert_eq!(hsa_tools_lib(&layer, Some(&copy)), format!("{copy} {l}"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn icd_mode_sets_both_loaders_and_the_drivers() {
    let env = activation(
        Mode::Icd,
        Path::new("/l/libcltap_layer.so"),
        &[PathBuf::from("/d/a.so"), PathBuf::from("/d/b.so")],
        None,
        None,
    );
    assert!(env.contains(&("OCL_ICD_VENDORS".into(), "/l/libcltap_layer.so".into())));
    assert!(env.contains(&("OCL_ICD_FILENAMES".into(), "/l/libcltap_layer.so".into())));
    assert!(env.contains(&("CLTAP_ICD_FILENAMES".into(), "/d/a.so:/d/b.so".into())));
}

#[test]
fn layer_mode_sets_opencl_layers_and_a_chosen_driver() {
    let env = activation(Mode::Auto, Path::new("/l.so"), &[], None, None);
    assert_eq!(env, vec![("OPENCL_LAYERS".to_string(), "/l.so".to_string())]);
    let env = activation(
        Mode::Layer,
        Path::new("/l.so"),
        &[PathBuf::from("/d/pocl.so")],
        None,
        Some(Path::new("/k/libOpenCL.so.1")),
    );
    assert!(env.contains(&("OCL_ICD_VENDORS".into(), "/d/pocl.so".into())));
    assert!(env.iter().any(|(k, v)| k == "LD_LIBRARY_PATH" && v.starts_with("/k")));
    // Several drivers: a loader that reads no list is pointed at a folder
    // naming them, and given no list to load a second time; one that reads a
    // list gets it, and a library path where it looks for a folder.
    let two = [PathBuf::from("/d/pocl.so"), PathBuf::from("/d/oclgrind.so")];
    let env = activation(Mode::Layer, Path::new("/l.so"), &two, Some(Path::new("/t/v")), None);
    assert!(env.contains(&("OCL_ICD_VENDORS".into(), "/t/v".into())), "{env:?}");
    assert!(!env.iter().any(|(k, _)| k == "OCL_ICD_FILENAMES"), "{env:?}");
    let env = activation(Mode::Layer, Path::new("/l.so"), &two, None, None);
    assert!(env.contains(&("OCL_ICD_FILENAMES".into(), "/d/pocl.so:/d/oclgrind.so".into())), "{env:?}");
    assert!(env.contains(&("OCL_ICD_VENDORS".into(), "/d/pocl.so".into())), "{env:?}");
}

#[test]
fn missing_layer_says_where_it_looked() {
    let e = find_layer(Some(Path::new("/nope/libcltap_layer.so"))).unwrap_err();
    assert!(e.contains("/nope/libcltap_layer.so"), "{e}");
}

#[test]
fn loaders_are_told_apart() {
    let d = std::env::temp_dir().join(format!("cltap-loader-{}", std::process::id()));
    std::fs::write(&d, b"....getenv OPENCL_LAYERS....").unwrap();
    assert!(loader_supports_layers(&d));
    std::fs::write(&d, b"....getenv OCL_ICD_VENDORS....").unwrap();
    assert!(!loader_supports_layers(&d));
    let _ = std::fs::remove_file(d);
}
